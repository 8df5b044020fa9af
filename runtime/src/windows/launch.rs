//! The launch on Windows, in order: refuse a refused plan; without fs confinement, run in
//! the Job Object only; else look up every call the confinement needs (a missing one —
//! Wine's case — refuses the launch), create or open the AppContainer profile of the
//! projection, stamp each grant, check every exclusion with the child's token, and start
//! the program suspended with `SECURITY_CAPABILITIES` carrying exactly the plan's
//! capability SIDs, put it in the Job Object (512 processes), resume it and wait.
//! It must never start the program unconfined when the plan asks for confinement.

use super::ffi::{api, last_error, wide, Handle, Sid};
use super::guard::{ensure_unreachable, ChildContext, ANY_RIGHT, WRITE_RIGHTS};
use super::stamp::apply;
use super::store::Store;
use crate::cmdline::command_line;
use crate::plan::windows::WindowsPlan;
use sha2::{Digest, Sha256};
use windows_sys::core::HRESULT;
use windows_sys::Win32::Security::Isolation::{
    CreateAppContainerProfile, DeriveAppContainerSidFromAppContainerName,
};
use windows_sys::Win32::Security::{PSID, SECURITY_CAPABILITIES, SID_AND_ATTRIBUTES};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_ACTIVE_PROCESS,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{
    CreateProcessW, DeleteProcThreadAttributeList, GetExitCodeProcess,
    InitializeProcThreadAttributeList, ResumeThread, UpdateProcThreadAttribute,
    WaitForSingleObject, CREATE_SUSPENDED, CREATE_UNICODE_ENVIRONMENT,
    EXTENDED_STARTUPINFO_PRESENT, INFINITE, PROCESS_INFORMATION,
    PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES, STARTUPINFOEXW,
};

/// Exit code of a refused launch (as on Linux).
pub const EXIT_REFUSED: i32 = 126;

/// The calls a confined launch makes that Wine 8.0 does not export.
const NEEDED: &[(&str, &str)] = &[
    ("userenv.dll", "CreateAppContainerProfile"),
    ("userenv.dll", "DeriveAppContainerSidFromAppContainerName"),
    ("authz.dll", "AuthzSetAppContainerInformation"),
];

/// The AppContainer profile name of a plan's projection: `ralc.` and 32 hex of SHA-256
/// over its sorted capability SIDs (one profile per distinct projection).
pub fn profile_name(plan: &WindowsPlan) -> String {
    let mut caps = plan.token_capabilities();
    caps.sort();
    let d = Sha256::digest(caps.join(";").as_bytes());
    let hex: String = d[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("ralc.{hex}")
}

/// Create (or find) the profile and return its SID.
fn appcontainer_sid(name: &str) -> Result<Sid, String> {
    let w = wide(name);
    let mut sid: PSID = std::ptr::null_mut();
    // SAFETY: NUL-terminated strings; the SID is freed with FreeSid (leaked for the
    // process's life here, a few bytes)
    let hr: HRESULT = unsafe {
        CreateAppContainerProfile(
            w.as_ptr(),
            w.as_ptr(),
            w.as_ptr(),
            std::ptr::null(),
            0,
            &mut sid,
        )
    };
    const ALREADY_EXISTS: HRESULT = 0x8007_00B7_u32 as HRESULT;
    if hr == ALREADY_EXISTS {
        // SAFETY: as above
        let hr = unsafe { DeriveAppContainerSidFromAppContainerName(w.as_ptr(), &mut sid) };
        if hr != 0 {
            return Err(format!(
                "cannot open the AppContainer profile {name}: {hr:#x}"
            ));
        }
    } else if hr != 0 {
        return Err(format!(
            "cannot create the AppContainer profile {name}: {hr:#x}"
        ));
    }
    Sid::parse(&super::ffi::text_of(sid))
}

/// The Job Object capping the child's tree, killed when ralc exits.
fn job(cap: u32) -> Result<Handle, String> {
    // SAFETY: an anonymous job; the handle is owned by `Handle`
    let job = Handle::new(unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) })
        .ok_or_else(|| format!("cannot create the Job Object: {}", last_error()))?;
    // SAFETY: zeroed is a valid value of this plain C struct
    let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    info.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_ACTIVE_PROCESS | JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    info.BasicLimitInformation.ActiveProcessLimit = cap;
    // SAFETY: the struct of the class, with its size
    let ok = unsafe {
        SetInformationJobObject(
            job.0,
            JobObjectExtendedLimitInformation,
            (&info as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(format!("cannot cap the Job Object: {}", last_error()));
    }
    Ok(job)
}

/// Launch `args` (the program first) under the plan, in `cwd`, with the stamp store at
/// `store`. The exit code of the program, or the refusal.
pub fn launch(
    plan: &WindowsPlan,
    args: &[String],
    cwd: &str,
    store: &Store,
) -> Result<i32, String> {
    if !plan.refused.is_empty() {
        return Err(format!("the plan refuses: {}", plan.refused.join("; ")));
    }
    let Some((program, rest)) = args.split_first() else {
        return Err("no program to launch".to_string());
    };
    let job = job(plan.job_process_cap)?;
    if !plan.confined {
        return spawn(program, rest, cwd, None, &job);
    }
    for (dll, name) in NEEDED {
        if !api(dll, name) {
            return Err(format!(
                "this system does not export {name} ({dll}), so the AppContainer cannot be \
                 built; nothing ran"
            ));
        }
    }
    let container = appcontainer_sid(&profile_name(plan))?;
    let caps: Vec<Sid> = plan
        .token_capabilities()
        .iter()
        .map(|s| Sid::parse(s))
        .collect::<Result<_, _>>()?;
    for s in &plan.stamps {
        apply(s, store)?;
    }
    let child = ChildContext::new(&container, &caps)?;
    ensure_unreachable(&child, &plan.exclusions, ANY_RIGHT)?;
    ensure_unreachable(&child, &plan.write_exclusions, WRITE_RIGHTS)?;
    spawn(program, rest, cwd, Some((&container, &caps)), &job)
}

/// Start the program suspended (in the AppContainer when `confine` is given), put it in
/// the job, resume it, and wait for its exit code.
#[allow(
    clippy::disallowed_methods,
    reason = "launch site: the admitted program, started with the plan's LowBox token"
)]
fn spawn(
    program: &str,
    args: &[String],
    cwd: &str,
    confine: Option<(&Sid, &[Sid])>,
    job: &Handle,
) -> Result<i32, String> {
    let mut attrs: Vec<SID_AND_ATTRIBUTES> = confine
        .map(|(_, sids)| {
            sids.iter()
                .map(|s| SID_AND_ATTRIBUTES {
                    Sid: s.as_psid(),
                    Attributes: 4, // SE_GROUP_ENABLED
                })
                .collect()
        })
        .unwrap_or_default();
    let mut caps = SECURITY_CAPABILITIES {
        AppContainerSid: std::ptr::null_mut(),
        Capabilities: std::ptr::null_mut(),
        CapabilityCount: 0,
        Reserved: 0,
    };
    // SAFETY: zeroed is a valid value of this plain C struct
    let mut si: STARTUPINFOEXW = unsafe { std::mem::zeroed() };
    si.StartupInfo.cb = std::mem::size_of::<STARTUPINFOEXW>() as u32;
    let mut list: Vec<u8> = Vec::new();
    if let Some((container, _)) = confine {
        caps.AppContainerSid = container.as_psid();
        caps.Capabilities = attrs.as_mut_ptr();
        caps.CapabilityCount = attrs.len() as u32;
        let mut size = 0usize;
        // SAFETY: the documented size query (fails with the size set)
        unsafe { InitializeProcThreadAttributeList(std::ptr::null_mut(), 1, 0, &mut size) };
        list = vec![0u8; size];
        si.lpAttributeList = list.as_mut_ptr().cast();
        // SAFETY: a buffer of the size asked
        if unsafe { InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0, &mut size) } == 0 {
            return Err(format!("cannot build the attribute list: {}", last_error()));
        }
        // SAFETY: `caps` and `attrs` outlive CreateProcessW below
        let ok = unsafe {
            UpdateProcThreadAttribute(
                si.lpAttributeList,
                0,
                PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES as usize,
                (&caps as *const SECURITY_CAPABILITIES).cast(),
                std::mem::size_of::<SECURITY_CAPABILITIES>(),
                std::ptr::null_mut(),
                std::ptr::null(),
            )
        };
        if ok == 0 {
            let e = last_error();
            // SAFETY: initialised above
            unsafe { DeleteProcThreadAttributeList(si.lpAttributeList) };
            return Err(format!(
                "cannot attach the AppContainer's SECURITY_CAPABILITIES: {e}; nothing ran"
            ));
        }
    }
    let app = wide(program);
    let mut line = wide(&command_line(program, args));
    let dir = wide(cwd);
    // SAFETY: zeroed is a valid value of this plain C struct
    let mut pi: PROCESS_INFORMATION = unsafe { std::mem::zeroed() };
    let flags = CREATE_SUSPENDED
        | CREATE_UNICODE_ENVIRONMENT
        | if confine.is_some() {
            EXTENDED_STARTUPINFO_PRESENT
        } else {
            0
        };
    // SAFETY: NUL-terminated strings, a mutable command line, and a startup info whose
    // attribute list (if any) is live
    let ok = unsafe {
        CreateProcessW(
            app.as_ptr(),
            line.as_mut_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            flags,
            std::ptr::null(),
            dir.as_ptr(),
            &si.StartupInfo,
            &mut pi,
        )
    };
    let created = last_error();
    if confine.is_some() {
        // SAFETY: initialised above
        unsafe { DeleteProcThreadAttributeList(si.lpAttributeList) };
    }
    drop(list);
    if ok == 0 {
        return Err(format!("cannot start `{program}`: {created}; nothing ran"));
    }
    let process = Handle(pi.hProcess);
    let thread = Handle(pi.hThread);
    // SAFETY: live handles of the suspended child
    if unsafe { AssignProcessToJobObject(job.0, process.0) } == 0 {
        let e = last_error();
        // the child never ran: the job's kill-on-close ends it with the handle
        return Err(format!(
            "cannot put the child in the Job Object: {e}; nothing ran"
        ));
    }
    // SAFETY: the suspended child's main thread
    unsafe { ResumeThread(thread.0) };
    // SAFETY: a live process handle
    unsafe { WaitForSingleObject(process.0, INFINITE) };
    let mut code = 0u32;
    // SAFETY: a live process handle
    unsafe { GetExitCodeProcess(process.0, &mut code) };
    Ok(code as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::windows::{GrantKind, Stamp};

    fn plan() -> WindowsPlan {
        let mut p = WindowsPlan::empty();
        p.confined = true;
        p.stamps
            .push(Stamp::new("C:\\x", GrantKind::Ro, "c:\\x".to_string()));
        p
    }

    #[test]
    fn one_profile_per_projection() {
        let a = plan();
        let mut b = plan();
        assert_eq!(profile_name(&a), profile_name(&b));
        b.stamps
            .push(Stamp::new("C:\\y", GrantKind::Rw, "c:\\y".to_string()));
        assert_ne!(profile_name(&a), profile_name(&b));
        assert!(profile_name(&a).len() <= 64);
    }

    #[test]
    fn a_refused_plan_runs_nothing() {
        let mut p = plan();
        p.refused.push("no".into());
        let d = tempfile::tempdir().expect("tempdir");
        let store = Store::at(&d.path().join("stamps.json"));
        let e = launch(
            &p,
            &["C:\\Windows\\System32\\cmd.exe".into()],
            "C:\\",
            &store,
        )
        .expect_err("refused");
        assert!(e.contains("refuses"));
    }

    /// Under Wine the AppContainer calls are missing: the launch must refuse, never run
    /// the program unconfined. On Windows it runs `cmd /c exit 7` in the container.
    #[test]
    fn a_confined_launch_runs_confined_or_not_at_all() {
        let d = tempfile::tempdir().expect("tempdir");
        let store = Store::at(&d.path().join("stamps.json"));
        let mut p = WindowsPlan::empty();
        p.confined = true;
        let cmd = "C:\\Windows\\System32\\cmd.exe".to_string();
        p.stamps
            .push(Stamp::new(&cmd, GrantKind::Ro, cmd.to_lowercase()));
        let r = launch(&p, &[cmd, "/c".into(), "exit 7".into()], "C:\\", &store);
        if super::super::ffi::is_wine() && !super::super::ffi::strict() {
            let e = r.expect_err("Wine cannot confine: the launch is refused");
            assert!(
                e.contains("nothing ran") || e.contains("does not export"),
                "{e}"
            );
            super::super::ffi::skip_under_wine(
                "a_confined_launch_runs_confined_or_not_at_all",
                "Wine 8.0 refuses AppContainer processes: the refusal was checked, the \
                 confined run was not",
            );
            return;
        }
        assert_eq!(r, Ok(7));
    }

    #[test]
    fn the_job_object_is_capped() {
        let j = job(512).expect("job");
        assert!(!j.0.is_null());
    }
}
