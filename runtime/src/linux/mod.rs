//! The Linux enforcement: the only modules of ralc that make sandbox syscalls. Each file
//! says what it does and what it must never do. The shape is bwrap → `ralc --warrant`
//! trampoline → Landlock → execve (see docs/linux.md).

pub mod agents;
pub mod alias;
pub mod bwrap;
pub mod cgroup;
pub mod dirents;
pub mod exec_target;
pub mod git_state;
pub mod handle;
pub mod helper;
pub mod landlock;
pub mod launch;
pub mod memfd;
pub mod placeholders;
pub mod private_temp;
pub mod privilege;
pub mod procfs;
pub mod refusal;
pub mod seccomp;
pub mod streams;
pub mod supervise;
pub mod trampoline;
pub mod warrant;
