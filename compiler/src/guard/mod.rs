//! The wording of refusals: one place that turns a `Withheld` or `Refused` into the
//! message a user reads. It never decides anything itself.
