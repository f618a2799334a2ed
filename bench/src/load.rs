//! The load generator: spawns any stdio MCP server command, opens the session as its
//! revision does (2025-11-25: `initialize`; 2026-07-28: none, the first `tools/list` decides
//! the session and every request carries its `_meta`), and measures startup, `tools/list` and `tools/call` latency, pipelined call throughput, server
//! CPU per call and peak RSS. Every response is validated (its id was outstanding, it is a
//! result of the revision asked for, not an error); anything else fails the run loudly.
//!
//! The generator shares the machine with the server, so it is kept cheap: requests are
//! formatted straight into the pipe's buffer, responses are read without building a JSON
//! tree, a latency stops when the response's last byte has arrived (validation comes after),
//! and pipelined requests are written in one batch per read of responses.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::revision::Revision;

/// What to run and how hard.
#[derive(Debug, Clone)]
pub struct Config {
    /// The server command and its arguments.
    pub command: Vec<String>,
    /// The protocol revision spoken.
    pub revision: Revision,
    /// How many tools the server has (`tool_0` ... `tool_{T-1}`).
    pub tools: usize,
    /// Sequential `tools/list` requests for the latency figures.
    pub list_reps: usize,
    /// Sequential `tools/call` requests for the latency figures.
    pub call_reps: usize,
    /// Calls in the pipelined throughput phase.
    pub throughput_calls: usize,
    /// Calls kept in flight during the throughput phase.
    pub in_flight: usize,
    /// Extra spawns measured for startup only (startup is the median over them and the
    /// main run: one spawn alone is at the mercy of the machine's hiccups).
    pub extra_startups: usize,
    /// One call made every time instead of the fixture's `tool_i` (a server of its own, such
    /// as the notes example's `get_note`).
    pub call: Option<FixedCall>,
}

/// The call a load run makes every time (`toolsmith-bench load --call NAME --arguments JSON
/// --expect TEXT`).
#[derive(Debug, Clone)]
pub struct FixedCall {
    pub name: String,
    /// The arguments, a JSON object as written.
    pub arguments: String,
    /// How the answer's first text block starts.
    pub expect: String,
}

/// One run's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Measurement {
    /// Spawn to the `tools/list` response, milliseconds (`initialize` included on
    /// 2025-11-25; on 2026-07-28 that list is the first request): the median
    /// over `1 + extra_startups` spawns.
    pub startup_ms: f64,
    pub list_median_us: f64,
    pub list_p99_us: f64,
    /// Server CPU time (all threads) per sequential `tools/list`, microseconds.
    pub list_cpu_us: f64,
    pub call_median_us: f64,
    pub call_p99_us: f64,
    /// Pipelined `tools/call`s per second with `in_flight` outstanding.
    pub calls_per_sec: f64,
    /// Server CPU time (user + system) per call in the throughput phase, microseconds.
    pub cpu_per_call_us: f64,
    /// Peak resident set size of the server, kilobytes.
    pub peak_rss_kb: u64,
    /// The load generator's own CPU time per call in the throughput phase, microseconds.
    pub client_cpu_per_call_us: f64,
}

struct Session {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<Responses>,
    line: Vec<u8>,
    next_id: u64,
    revision: Revision,
    /// When the server was spawned.
    started: Instant,
}

/// A response, read without building a JSON tree: the generator must cost far less than the
/// servers it measures.
#[derive(Deserialize)]
struct Frame<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallOutcome<'a> {
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    #[serde(borrow)]
    content: Vec<Content<'a>>,
    #[serde(borrow, rename = "resultType")]
    result_type: Option<&'a str>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
}

impl Session {
    fn send(&mut self, frame: &Value) -> Result<(), String> {
        serde_json::to_writer(&mut self.stdin, frame).map_err(|e| e.to_string())?;
        self.stdin
            .write_all(b"\n")
            .map_err(|e| format!("writing to the server: {e}"))
    }

    fn flush(&mut self) -> Result<(), String> {
        self.stdin
            .flush()
            .map_err(|e| format!("writing to the server: {e}"))
    }

    /// The next response (notifications are skipped), and when its last byte arrived.
    fn response(&mut self) -> Result<(u64, &str, Instant), String> {
        loop {
            self.line.clear();
            let n = self
                .stdout
                .read_until(b'\n', &mut self.line)
                .map_err(|e| format!("reading from the server: {e}"))?;
            let arrived = Instant::now();
            if n == 0 {
                return Err("the server closed its stdout".into());
            }
            let frame: Frame = serde_json::from_slice(&self.line).map_err(|e| {
                format!(
                    "the server wrote a non-JSON line ({e}): {:.200}",
                    String::from_utf8_lossy(&self.line)
                )
            })?;
            let Some(id) = frame.id else { continue };
            let Some(result) = frame.result.filter(|_| frame.error.is_none()) else {
                return Err(format!(
                    "request {id} failed: {:.300}",
                    String::from_utf8_lossy(&self.line)
                ));
            };
            // Where the result sits in the line, so that the borrow ends here.
            let start = result.get().as_ptr() as usize - self.line.as_ptr() as usize;
            let range = start..start + result.get().len();
            let text = std::str::from_utf8(&self.line[range]).map_err(|e| e.to_string())?;
            return Ok((id, text, arrived));
        }
    }

    /// Whether a whole response is already buffered (then reading it needs no system call).
    fn response_buffered(&self) -> bool {
        self.stdout.buffer().contains(&b'\n')
    }

    /// Writes `tools/call` `id`, formatted straight into the buffer.
    fn call(&mut self, config: &Config) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        let meta = self.revision.params_suffix();
        let written = match &config.call {
            None => {
                let tool = id as usize % config.tools;
                writeln!(
                    self.stdin,
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"tool_{tool}","arguments":{{"a":{id},"b":2,"label":"bench"}}{meta}}}}}"#
                )
            }
            Some(FixedCall {
                name, arguments, ..
            }) => writeln!(
                self.stdin,
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}{meta}}}}}"#
            ),
        };
        written.map_err(|e| format!("writing to the server: {e}"))?;
        Ok(id)
    }

    /// A request and its response, in sequence; the response must be a result for `id`.
    /// Also returns the time from writing the request to the response's last byte.
    fn round_trip(&mut self, method: &str, params: Value) -> Result<(&str, Duration), String> {
        let id = self.next_id;
        self.next_id += 1;
        let params = self.revision.params(params);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        self.timed_response(id, Instant::now())
    }

    fn timed_response(&mut self, id: u64, started: Instant) -> Result<(&str, Duration), String> {
        self.flush()?;
        let (got, result, arrived) = self.response()?;
        if got != id {
            return Err(format!("expected the response to {id}, got one to {got}"));
        }
        Ok((result, arrived - started))
    }
}

/// Checks a call result is the tool's answer for `id` in `revision`'s shape, and not an
/// error result.
fn check_call(result: &str, id: u64, config: &Config) -> Result<(), String> {
    let parsed: CallOutcome = serde_json::from_str(result)
        .map_err(|e| format!("call {id}: not a CallToolResult ({e}): {result:.300}"))?;
    config
        .revision
        .check_result_type(parsed.result_type)
        .map_err(|e| format!("call {id}: {e}: {result:.300}"))?;
    let text = parsed
        .content
        .first()
        .and_then(|c| c.text.as_deref())
        .unwrap_or_default();
    let expected = match &config.call {
        None => Cow::Owned(format!(
            "{{\"tool\":{},\"sum\":{}",
            id as usize % config.tools,
            id + 2
        )),
        Some(call) => Cow::Borrowed(call.expect.as_str()),
    };
    if parsed.is_error != Some(true) && text.starts_with(&*expected) {
        Ok(())
    } else {
        Err(format!("call {id}: unexpected result {result:.300}"))
    }
}

/// Checks a list result has every tool, in the revision's shape.
fn check_list(result: &str, config: &Config) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Listed<'a> {
        tools: Vec<serde::de::IgnoredAny>,
        #[serde(borrow, rename = "resultType")]
        result_type: Option<&'a str>,
    }
    let listed: Listed = serde_json::from_str(result)
        .map_err(|e| format!("tools/list: not a ListToolsResult ({e}): {result:.300}"))?;
    config
        .revision
        .check_result_type(listed.result_type)
        .map_err(|e| format!("tools/list: {e}"))?;
    if listed.tools.len() != config.tools {
        return Err(format!(
            "tools/list returned {} tools, expected {}",
            listed.tools.len(),
            config.tools
        ));
    }
    Ok(())
}

/// Runs the whole measurement against one freshly spawned server.
pub fn measure(config: &Config) -> Result<Measurement, String> {
    let mut startups = Vec::with_capacity(config.extra_startups + 1);
    for _ in 0..config.extra_startups {
        let mut session = Session::spawn(config)?;
        let outcome = session.start(config);
        session.end()?;
        startups.push(outcome?);
    }
    let mut session = Session::spawn(config)?;
    let outcome = session.start(config).and_then(|startup| {
        startups.push(startup);
        run(config, &mut session)
    });
    session.end()?;
    let mut measurement = outcome?;
    measurement.startup_ms = percentile(&mut startups, 50.0) / 1e3;
    Ok(measurement)
}

impl Session {
    fn spawn(config: &Config) -> Result<Session, String> {
        let (program, args) = config.command.split_first().ok_or("empty server command")?;
        let mut child = Command::new(program)
            .args(args)
            .env("TOOLSMITH_LOG", "off")
            .env("RUST_LOG", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        Ok(Session {
            stdin: BufWriter::with_capacity(1 << 16, child.stdin.take().unwrap()),
            stdout: BufReader::with_capacity(1 << 16, Responses::new(child.stdout.take().unwrap())),
            child,
            line: Vec::new(),
            next_id: 1,
            revision: config.revision,
            started: Instant::now(),
        })
    }

    /// On 2025-11-25 `initialize` first; then `tools/list` (which must list every tool, in
    /// the revision's shape): the startup time. On 2026-07-28 that list is the first request,
    /// which decides the session.
    fn start(&mut self, config: &Config) -> Result<Duration, String> {
        if !config.revision.stateless() {
            self.round_trip(
                "initialize",
                json!({"protocolVersion": config.revision.name(), "capabilities": {},
                       "clientInfo": {"name": "toolsmith-bench", "version": "0"}}),
            )?;
            self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        }
        let started = self.started;
        let (listed, _) = self.round_trip("tools/list", json!({}))?;
        let startup = started.elapsed();
        check_list(listed, config)?;
        Ok(startup)
    }

    /// Closes the server's input and waits for it to exit cleanly.
    fn end(self) -> Result<(), String> {
        let Session {
            stdin, mut child, ..
        } = self;
        drop(stdin);
        let status = child.wait().map_err(|e| e.to_string())?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("the server exited with {status}"))
        }
    }
}

fn run(config: &Config, s: &mut Session) -> Result<Measurement, String> {
    s.stdout.get_mut().spin = true;

    let pid = s.child.id();
    let mut list = Vec::with_capacity(config.list_reps);
    let list_cpu_before = settled_cpu_time(pid);
    for _ in 0..config.list_reps {
        let (listed, took) = s.round_trip("tools/list", json!({}))?;
        list.push(took);
        check_list(listed, config)?;
    }
    let list_cpu = settled_cpu_time(pid).saturating_sub(list_cpu_before);

    let mut calls = Vec::with_capacity(config.call_reps);
    for _ in 0..config.call_reps {
        let t = Instant::now();
        let id = s.call(config)?;
        let (result, took) = s.timed_response(id, t)?;
        calls.push(took);
        check_call(result, id, config)?;
    }

    s.stdout.get_mut().spin = false;
    let (cpu_before, own_before) = (settled_cpu_time(pid), own_cpu_time());
    let t = Instant::now();
    pipelined(config, s)?;
    let elapsed = t.elapsed();
    let cpu = settled_cpu_time(pid).saturating_sub(cpu_before);
    let own = own_cpu_time().saturating_sub(own_before);
    let peak_rss_kb = peak_rss(pid);

    let n = config.throughput_calls.max(1) as f64;
    Ok(Measurement {
        startup_ms: 0.0, // set by `measure`
        list_median_us: percentile(&mut list, 50.0),
        list_p99_us: percentile(&mut list, 99.0),
        list_cpu_us: list_cpu.as_secs_f64() * 1e6 / config.list_reps.max(1) as f64,
        call_median_us: percentile(&mut calls, 50.0),
        call_p99_us: percentile(&mut calls, 99.0),
        calls_per_sec: n / elapsed.as_secs_f64(),
        cpu_per_call_us: cpu.as_secs_f64() * 1e6 / n,
        peak_rss_kb,
        client_cpu_per_call_us: own.as_secs_f64() * 1e6 / n,
    })
}

/// The server's stdout, non-blocking. While `spin` is set (the sequential latency phases) a
/// read waiting for a response polls instead of sleeping, so that the generator's own
/// wake-up is not part of every latency (on a VM it costs tens of microseconds, the same
/// for every server). Otherwise it sleeps in `poll(2)`, leaving the CPU to the server.
struct Responses {
    stdout: ChildStdout,
    spin: bool,
}

impl Responses {
    fn new(stdout: ChildStdout) -> Self {
        use std::os::fd::AsRawFd;
        let fd = stdout.as_raw_fd();
        // SAFETY: fcntl on a descriptor this process owns.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        Responses {
            stdout,
            spin: false,
        }
    }
}

impl std::io::Read for Responses {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::fd::AsRawFd;
        loop {
            match self.stdout.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if self.spin {
                        std::hint::spin_loop();
                    } else {
                        let mut fd = libc::pollfd {
                            fd: self.stdout.as_raw_fd(),
                            events: libc::POLLIN,
                            revents: 0,
                        };
                        // SAFETY: one valid pollfd.
                        unsafe { libc::poll(&mut fd, 1, -1) };
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

/// `throughput_calls` calls with `in_flight` outstanding: a new call is owed for each answer
/// that comes back, and the owed calls go out together once the answers read so far are
/// handled. Every answer must match an outstanding call.
fn pipelined(config: &Config, s: &mut Session) -> Result<(), String> {
    let mut outstanding = HashSet::with_capacity(config.in_flight);
    let (mut sent, mut received) = (0, 0);
    while sent < config.throughput_calls.min(config.in_flight) {
        outstanding.insert(s.call(config)?);
        sent += 1;
    }
    s.flush()?;
    while received < config.throughput_calls {
        let (id, result, _) = s.response()?;
        check_call(result, id, config)?;
        if !outstanding.remove(&id) {
            return Err(format!(
                "a response to {id}, which is not outstanding (duplicate?)"
            ));
        }
        received += 1;
        if sent < config.throughput_calls {
            outstanding.insert(s.call(config)?);
            sent += 1;
        }
        if !s.response_buffered() {
            s.flush()?;
        }
    }
    Ok(())
}

fn percentile(samples: &mut [Duration], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort();
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank].as_secs_f64() * 1e6
}

/// [`cpu_time`] once the server has gone idle: the kernel brings a thread's run time up to
/// date when it stops running, so a thread still busy (polling for input, say) would be
/// under-counted. No request is in flight here; 2 ms is far more than any polling window.
fn settled_cpu_time(pid: u32) -> Duration {
    std::thread::sleep(Duration::from_millis(2));
    cpu_time(pid)
}

/// CPU time of `pid`, all threads, exited ones included: its process CPU-time clock
/// (`clock_getcpuclockid`, nanoseconds, up to date even for a thread that is running right
/// now), else user + system time in clock ticks (`/proc/<pid>/stat`); zero elsewhere.
pub fn cpu_time(pid: u32) -> Duration {
    let mut clock: libc::clockid_t = 0;
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: both calls write into the locals they are given.
    let read = unsafe {
        libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) == 0
            && libc::clock_gettime(clock, &mut now) == 0
    };
    if read {
        return Duration::new(now.tv_sec as u64, now.tv_nsec as u32);
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    Duration::from_secs_f64(ticks as f64 / clock_ticks())
}

/// User + system CPU time of this process (the generator is single-threaded).
fn own_cpu_time() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

/// Peak RSS (`VmHWM`) of `pid` in kB (Linux `/proc`; zero elsewhere).
pub fn peak_rss(pid: u32) -> u64 {
    status_kb(pid, "VmHWM:")
}

/// The memory figure `field` (such as `VmRSS:`) of `pid`'s `/proc` status, in kB; zero
/// where there is none.
pub fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
