//! What the load test reads of the machine: the server's memory and processor time, its own
//! processor time, and the load average (Linux `/proc`).

/// The resident memory of process `pid` in KiB (`VmRSS` of `/proc/PID/status`); `None` when
/// there is no such process (or no `/proc`).
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The one-minute load average of this machine as `/proc/loadavg` writes it, or `?`.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// Clock ticks per second of the times in `/proc/PID/stat` (`USER_HZ`: 100 on every Linux
/// architecture chuhe runs on; `proc(5)`, "utime ... measured in clock ticks").
const USER_HZ: f64 = 100.0;

/// The processor time process `pid` used so far, user and system, all threads, in seconds
/// (fields 14 and 15 of `/proc/PID/stat`, read after the command name's closing parenthesis);
/// `None` when there is no such process. In steps of 10 ms.
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    stat_cpu_seconds(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The processor time of process `pid` and of its children, in seconds: its own, that of its
/// children that ended and were waited for (`cutime`, `cstime`), and that of its children
/// still running (every `/proc/N/stat` whose parent is `pid`). For PostgreSQL's postmaster,
/// the whole database server: its backends come and go. `None` when there is no such process.
pub(crate) fn tree_cpu_seconds(pid: u32) -> Option<f64> {
    let own = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut total = stat_cpu_seconds(&own)? + stat_children_cpu_seconds(&own)?;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(child) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        if stat_parent(&stat) == Some(pid) {
            total += stat_cpu_seconds(&stat).unwrap_or(0.0);
        }
    }
    Some(total)
}

/// The parent process id of a `/proc/PID/stat` line (field 4).
fn stat_parent(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// cutime + cstime of a `/proc/PID/stat` line (fields 16 and 17: the children waited for), in
/// seconds.
fn stat_children_cpu_seconds(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let cutime: u64 = fields.nth(13)?.parse().ok()?;
    let cstime: u64 = fields.next()?.parse().ok()?;
    Some((cutime + cstime) as f64 / USER_HZ)
}

/// The load test's own processor time so far, in seconds (`/proc/self/stat`), as
/// [`cpu_seconds`].
pub(crate) fn own_cpu_seconds() -> Option<f64> {
    stat_cpu_seconds(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// utime + stime of a `/proc/PID/stat` line, in seconds. The command name (field 2) is in
/// parentheses and may hold spaces: the fields are counted after its last `)`.
fn stat_cpu_seconds(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // After the name: state (3), ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt,
    // majflt, cmajflt (13), then utime (14) and stime (15).
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 / USER_HZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_time_is_read_after_the_name() {
        // A name with a space and a parenthesis; utime 250 and stime 50 ticks: 3 s.
        let line = "4242 (chuhe (x) y) S 1 4242 4242 0 -1 4194560 1536 0 0 0 250 50 0 0 20 0 9 0";
        assert_eq!(stat_cpu_seconds(line), Some(3.0));
        assert_eq!(stat_cpu_seconds("4242 (chuhe) S 1"), None);
        // Its parent 1, its waited-for children 0 + 0 ticks.
        assert_eq!(stat_parent(line), Some(1));
        assert_eq!(stat_children_cpu_seconds(line), Some(0.0));
    }

    #[test]
    fn the_children_time_follows_the_own_time() {
        // A postmaster: utime 120, stime 30, cutime 700, cstime 200 ticks.
        let line = "900 (postgres) S 1 900 900 0 -1 4194560 10 0 0 0 120 30 700 200 20 0 1 0";
        assert_eq!(stat_cpu_seconds(line), Some(1.5));
        assert_eq!(stat_children_cpu_seconds(line), Some(9.0));
        assert_eq!(stat_parent("901 (postgres: writer) S 900 900"), Some(900));
    }

    #[test]
    fn a_process_and_its_children_are_measured_together() {
        // This test process: at least its own time, and none for a process that is not there.
        let me = std::process::id();
        let own = cpu_seconds(me).unwrap();
        assert!(tree_cpu_seconds(me).unwrap() >= own);
        assert_eq!(tree_cpu_seconds(u32::MAX), None);
        assert!(own_cpu_seconds().is_some());
    }
}
