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
        assert!(own_cpu_seconds().is_some());
    }
}
