//! Making `nice` hold across sessions on Linux.
//!
//! With autogroup scheduling (`/proc/sys/kernel/sched_autogroup_enabled`, on by default in
//! most distributions' kernels), the scheduler first shares the CPU between *sessions*, and a
//! process's nice value only orders it within its own session. A job started as
//! `setsid nice -n 19 shears-tune datagen ...` is alone in its session, so it gets as much of
//! the CPU as a trainer or a match started from another session: measured on 2 vCPUs, datagen
//! at nice 19 took 100% of a core against two busy loops' 41% each, and 6% against their 94%
//! with its group at nice 19 (docs/nnue.md, "Generation 6"). The group has a nice value of its
//! own (`/proc/self/autogroup`), which a process may raise without privileges.

use std::path::Path;

/// The session id and nice value in the text of `/proc/<pid>/stat`. The command name (field
/// 2) is in parentheses and may hold spaces or parentheses itself, so the fields are counted
/// from the last `)`.
fn session_and_nice(stat: &str) -> Option<(u32, i32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state (3), ppid (4), pgrp (5), session (6), ... nice (19).
    let session = fields.get(3)?.parse().ok()?;
    let nice = fields.get(16)?.parse().ok()?;
    Some((session, nice))
}

/// The nice value an autogroup file (`/autogroup-33 nice 0`) gives its group.
fn group_nice(text: &str) -> Option<i32> {
    text.split_whitespace()
        .skip_while(|w| *w != "nice")
        .nth(1)?
        .parse()
        .ok()
}

/// When this process runs at a positive nice value and leads its own session (as `setsid`
/// starts it, so its group holds only this job), gives its autogroup the same nice value, so
/// that it yields to work in other sessions as `nice` promises. Returns a line saying what was
/// done or why not, for the run's log; `None` where there is nothing to say (no autogroup, or
/// not niced).
pub(crate) fn follow_nice() -> Option<String> {
    follow_nice_at(Path::new("/proc/self"), std::process::id())
}

fn follow_nice_at(proc_self: &Path, pid: u32) -> Option<String> {
    let group_path = proc_self.join("autogroup");
    let group = std::fs::read_to_string(&group_path).ok()?;
    let stat = std::fs::read_to_string(proc_self.join("stat")).ok()?;
    let (session, nice) = session_and_nice(&stat)?;
    let now = group_nice(&group);
    if nice <= 0 || now == Some(nice) {
        return None;
    }
    if session != pid {
        return Some(format!(
            "nice {nice}, but this session's autogroup is at {}: other sessions' jobs share \
             the CPU with this whole session equally (start it with setsid to lower only it)",
            now.map_or_else(|| "an unknown nice".to_string(), |n| n.to_string())
        ));
    }
    Some(match std::fs::write(&group_path, nice.to_string()) {
        Ok(()) => format!("nice {nice}, and its autogroup set to nice {nice} too"),
        Err(e) => format!(
            "nice {nice}, but its autogroup could not be set ({}: {e}); other sessions' jobs \
             share the CPU with it equally",
            group_path.display()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_and_nice_are_read_past_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (shears (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 1 0 0 39 19 3 0 \
                    12345 1000 200";
        assert_eq!(session_and_nice(stat), Some((4242, 19)));
        let other = "7 (datagen) R 1 7 6 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1";
        assert_eq!(session_and_nice(other), Some((6, 0)));
        assert_eq!(session_and_nice("7 (cut off) R 1 7"), None);
        assert_eq!(session_and_nice("no name at all"), None);
    }

    #[test]
    fn the_group_nice_is_read_from_the_autogroup_line() {
        assert_eq!(group_nice("/autogroup-33 nice 0\n"), Some(0));
        assert_eq!(group_nice("/autogroup-35 nice 19"), Some(19));
        assert_eq!(group_nice("/autogroup-35"), None);
    }

    /// A stand-in for `/proc/self`: a session leader at nice 19 gets its group set to 19;
    /// one that is not a leader is told why it is not set; an un-niced one is left alone.
    #[test]
    fn a_niced_session_leader_sets_its_group_and_no_one_else_does() {
        let dir = crate::nnue_data::scratch_dir("autogroup");
        let stat = |session: u32, nice: i32| {
            format!("50 (datagen) S 1 50 {session} 0 -1 0 0 0 0 0 0 0 0 0 39 {nice} 3 0 1 1 1")
        };
        let group = dir.join("autogroup");

        std::fs::write(dir.join("stat"), stat(50, 19)).expect("stat");
        std::fs::write(&group, "/autogroup-9 nice 0\n").expect("group");
        let said = follow_nice_at(&dir, 50).expect("a line");
        assert!(said.contains("set to nice 19"), "{said}");
        assert_eq!(std::fs::read_to_string(&group).expect("group").trim(), "19");

        std::fs::write(dir.join("stat"), stat(49, 19)).expect("stat");
        std::fs::write(&group, "/autogroup-9 nice 0\n").expect("group");
        let said = follow_nice_at(&dir, 50).expect("a line");
        assert!(said.contains("setsid"), "{said}");
        assert_eq!(
            std::fs::read_to_string(&group).expect("group").trim(),
            "/autogroup-9 nice 0"
        );

        std::fs::write(dir.join("stat"), stat(50, 0)).expect("stat");
        assert_eq!(follow_nice_at(&dir, 50), None);
        std::fs::write(dir.join("stat"), stat(50, 19)).expect("stat");
        std::fs::write(&group, "/autogroup-9 nice 19\n").expect("group");
        assert_eq!(follow_nice_at(&dir, 50), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
