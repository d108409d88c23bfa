//! A recorded history of what clients asked of a deployment and what it answered, and the
//! checker that says whether the answers keep podhost's promises (Jepsen's method: record,
//! then check the record, never the logs).
//!
//! Each record (an episode, say) is a register: its value is what its writes gave it (`None`
//! before its creation and after its deletion). A client records every operation with the
//! time it was sent and the time its answer came, as one [`Entry`] per line of JSON (see
//! [`Recorder`]). An operation whose answer never came, or was one that does not say whether
//! the write took effect (a 503, a lost connection), is [`Outcome::Unknown`]: it may have
//! taken effect at any time after it was sent. A refusal that says nothing was done (a 4xx, a
//! 507) is [`Outcome::Failed`].
//!
//! [`check`] holds a history to:
//! - **linearizability**, per record: there is one order of its operations, consistent with
//!   real time (an operation answered before another was sent comes first), in which every
//!   read returns the value of the write before it (a read that says it was answered from a
//!   copy up to `Age` old may take effect that much before it was sent, as another observer's
//!   read of that copy: it may miss its own client's writes of that time). Searched with
//!   stateright's
//!   [`LinearizabilityTester`], the Wing & Gong search also used by Jepsen's Knossos;
//! - **no acknowledged write lost**: the last read of each record, sent after every write to
//!   it was answered, returns the last acknowledged write's value, or that of a write whose
//!   outcome is unknown and which was sent after it;
//! - **nothing applied twice**: no value created once (each creation writes a value of its
//!   own, under an Idempotency-Key) is held by two records in the final listing;
//! - **deliveries**: each event delivered at least once and at most
//!   [`Limits::max_deliveries`] times;
//! - **scheduled publications**: each publication scheduled (and acknowledged) announced by
//!   exactly one event (delivered at least once), never by two;
//! - **leases**: no two holders of one lease at once.

use std::{
    collections::{BTreeMap, BTreeSet},
    io::{BufRead, Write},
    sync::Mutex,
    time::Instant,
};

use serde::{Deserialize, Serialize};
use stateright::semantics::{
    ConsistencyTester, LinearizabilityTester,
    register::{Register, RegisterOp, RegisterRet},
};

/// One operation of a client, as sent and as answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The client that sent it: one client sends one operation at a time.
    pub client: u64,
    /// What was asked.
    pub op: Op,
    /// When it was sent, in µs from the start of the run.
    pub sent_us: u64,
    /// When its answer came, in µs from the start of the run; `None` when none came.
    pub answered_us: Option<u64>,
    /// For a read answered from what a server held while the store did not answer: how old
    /// that may have been, in µs (HTTP's `Age`). The read then took effect at some time from
    /// `sent_us` minus this on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_us: Option<u64>,
    /// What the answer said.
    pub outcome: Outcome,
}

/// What a client asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Op {
    /// Set `record` to `value` (a creation when the record is new).
    Write {
        /// The record (e.g. `episode/f/3`).
        record: String,
        /// Its new value.
        value: String,
    },
    /// Delete `record`.
    Delete {
        /// The record.
        record: String,
    },
    /// Read `record`: the answer's value is `None` when it does not exist.
    Read {
        /// The record.
        record: String,
    },
    /// The final listing of a container (a podcast's episodes): which record holds which
    /// value, read after the run, when nothing is in flight.
    List {
        /// The container.
        container: String,
        /// Each record's value.
        records: BTreeMap<String, String>,
    },
    /// A delivery received of event `event` (a webhook's event id).
    Delivered {
        /// The event.
        event: String,
        /// The record whose publication the event announces, when it announces one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        published: Option<String>,
    },
    /// A publication of `record` scheduled for later, acknowledged: it must be announced by
    /// exactly one event.
    Scheduled {
        /// The record.
        record: String,
    },
    /// A lease held by `holder` from `sent_us` to `answered_us`.
    Lease {
        /// The lease.
        lease: String,
        /// Who held it.
        holder: String,
    },
}

/// What an answer said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Done; a read's value (`None`: the record does not exist).
    Ok {
        /// What a read returned.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    },
    /// Refused, with nothing done (a 4xx, a 507).
    Failed {
        /// Why.
        why: String,
    },
    /// Done or not, nobody knows: no answer, or a 503 or 5xx after the request was sent.
    Unknown {
        /// Why.
        why: String,
    },
}

/// Records a history as operations are answered, as lines of JSON, safely from many tasks.
pub struct Recorder {
    start: Instant,
    /// The start by the system's monotonic clock, in µs.
    start_monotonic_us: i64,
    out: Mutex<Box<dyn Write + Send>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("start", &self.start)
            .finish()
    }
}

impl Recorder {
    /// A recorder writing to `out`, its clock starting now.
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        let start = Instant::now();
        Recorder {
            start,
            start_monotonic_us: podhost_core::LeaseHeld::monotonic_us(start),
            out: Mutex::new(out),
        }
    }

    /// A time another process of this machine took by the system's monotonic clock (µs, as
    /// a server's lease journal gives it: [`podhost_core::LeaseHeld`]), on the recorder's
    /// clock: µs since its start (0 before it).
    pub fn of_monotonic_us(&self, monotonic_us: i64) -> u64 {
        u64::try_from(monotonic_us - self.start_monotonic_us).unwrap_or_default()
    }

    /// Microseconds since the start: an operation's `sent_us` and `answered_us`.
    pub fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// Appends `entry`.
    pub fn record(&self, entry: &Entry) {
        let line = serde_json::to_string(entry).expect("an entry is JSON");
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        writeln!(out, "{line}").expect("the history is writable");
    }

    /// Writes out what is buffered.
    pub fn flush(&self) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        out.flush().expect("the history is writable");
    }
}

/// Reads a history written by a [`Recorder`].
pub fn load(input: impl BufRead) -> Result<Vec<Entry>, String> {
    input
        .lines()
        .enumerate()
        .filter(|(_, line)| !matches!(line, Ok(l) if l.trim().is_empty()))
        .map(|(n, line)| {
            let line = line.map_err(|e| format!("line {}: {e}", n + 1))?;
            serde_json::from_str(&line).map_err(|e| format!("line {}: {e}", n + 1))
        })
        .collect()
}

/// What a check allows.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most deliveries of one event that are not a fault (webhooks are delivered at least
    /// once; a server that dies after sending, before recording, sends again).
    pub max_deliveries: usize,
    /// How much older than its sending any read may be, in µs: a server reads what the
    /// others wrote within its catalog's refresh interval (`catalog.refresh_interval`, 500 ms
    /// by default), so reads through several servers are linearizable up to that, and
    /// strictly only at 0. The check reports both.
    pub read_staleness_us: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_deliveries: 3,
            read_staleness_us: 0,
        }
    }
}

/// What a check found. [`Report::holds`] says whether every promise held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Operations sent (writes, deletes and reads).
    pub invoked: usize,
    /// Of those, answered with success.
    pub acknowledged: usize,
    /// Refused with nothing done.
    pub failed: usize,
    /// Whose outcome is unknown.
    pub unknown: usize,
    /// Records whose history is not linearizable, reads allowed
    /// [`Limits::read_staleness_us`] of age, with the reason.
    pub not_linearizable: Vec<String>,
    /// Records whose history is not linearizable with no read allowed any age (but what it
    /// said itself, with `Age`); the same as `not_linearizable` when the limit is 0.
    pub not_strictly_linearizable: usize,
    /// Acknowledged writes that the last read of their record does not show.
    pub lost: Vec<String>,
    /// Values created once that two records hold.
    pub applied_twice: Vec<String>,
    /// Events delivered, and the fewest and most deliveries of one.
    pub events: usize,
    /// The fewest deliveries of one event (0 when none was delivered).
    pub min_deliveries: usize,
    /// The most deliveries of one event.
    pub max_deliveries: usize,
    /// Events delivered more often than allowed.
    pub over_delivered: Vec<String>,
    /// Leases held by two holders at once, with both.
    pub held_twice: Vec<String>,
    /// Publications scheduled and acknowledged.
    pub scheduled: usize,
    /// Of those, announced by exactly one event.
    pub published_once: usize,
    /// Scheduled publications announced by no event, or by more than one.
    pub not_published_once: Vec<String>,
}

impl Report {
    /// Whether every promise held.
    pub fn holds(&self) -> bool {
        self.not_linearizable.is_empty()
            && self.lost.is_empty()
            && self.applied_twice.is_empty()
            && self.over_delivered.is_empty()
            && self.held_twice.is_empty()
            && self.not_published_once.is_empty()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "operations {}, acknowledged {}, failed {}, unknown {}",
            self.invoked, self.acknowledged, self.failed, self.unknown
        )?;
        writeln!(
            f,
            "linearizable: {} (strictly: {}); lost: {}; applied twice: {}",
            if self.not_linearizable.is_empty() {
                "yes"
            } else {
                "NO"
            },
            match self.not_strictly_linearizable {
                0 => "yes".to_string(),
                n => format!("no, {n} records"),
            },
            self.lost.len(),
            self.applied_twice.len()
        )?;
        writeln!(
            f,
            "events delivered {} (each {}..={} times); over-delivered {}; leases held twice {}",
            self.events,
            self.min_deliveries,
            self.max_deliveries,
            self.over_delivered.len(),
            self.held_twice.len()
        )?;
        writeln!(
            f,
            "scheduled publications {}, published exactly once {}",
            self.scheduled, self.published_once
        )?;
        for line in self
            .not_linearizable
            .iter()
            .chain(&self.lost)
            .chain(&self.applied_twice)
            .chain(&self.over_delivered)
            .chain(&self.held_twice)
            .chain(&self.not_published_once)
            .take(20)
        {
            writeln!(f, "  {line}")?;
        }
        Ok(())
    }
}

/// The record an operation is about, if it is about one.
fn record_of(op: &Op) -> Option<&str> {
    match op {
        Op::Write { record, .. } | Op::Delete { record } | Op::Read { record } => Some(record),
        _ => None,
    }
}

/// Holds `history` to every promise (see the module's documentation).
pub fn check(history: &[Entry], limits: Limits) -> Report {
    let mut report = Report::default();
    let mut by_record: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for entry in history {
        if let Some(record) = record_of(&entry.op) {
            report.invoked += 1;
            match entry.outcome {
                Outcome::Ok { .. } => report.acknowledged += 1,
                Outcome::Failed { .. } => report.failed += 1,
                Outcome::Unknown { .. } => report.unknown += 1,
            }
            by_record.entry(record).or_default().push(entry);
        }
    }
    for (record, entries) in &by_record {
        if let Err(why) = linearizable(entries, limits.read_staleness_us) {
            report.not_linearizable.push(format!("{record}: {why}"));
        }
        if limits.read_staleness_us == 0 {
            report.not_strictly_linearizable = report.not_linearizable.len();
        } else if linearizable(entries, 0).is_err() {
            report.not_strictly_linearizable += 1;
        }
        if let Some(lost) = lost_write(entries) {
            report.lost.push(format!("{record}: {lost}"));
        }
    }
    report.applied_twice = applied_twice(history);
    deliveries(history, limits, &mut report);
    publications(history, &mut report);
    report.held_twice = held_twice(history);
    report
}

/// One step of a record's history for the tester, in real-time order.
enum Step<'a> {
    Send(u64, RegisterOp<Option<String>>, &'a Entry),
    Answer(u64, RegisterRet<Option<String>>),
}

/// Whether one record's operations are linearizable, as a register of `Option<String>`, each
/// read allowed to be `staleness` µs older than its sending (or what its `Age` said).
fn linearizable(entries: &[&Entry], staleness: u64) -> Result<(), String> {
    // (time, order at one time: sends before answers, so that equal times are concurrent).
    let mut steps: Vec<(u64, u8, usize, Step<'_>)> = Vec::new();
    // An operation of unknown outcome never returns; its client is replaced by a new one,
    // which may send while it is still in flight (Jepsen's crashed process).
    let mut next_unknown = u64::MAX;
    // A client's operations stay in its order: an old read takes effect no earlier than the
    // client's previous operation on the record was answered.
    let mut in_order: Vec<&Entry> = entries.to_vec();
    in_order.sort_by_key(|e| e.sent_us);
    let mut answered_last: BTreeMap<u64, u64> = BTreeMap::new();
    for (n, entry) in in_order.iter().enumerate() {
        let op = match &entry.op {
            Op::Write { value, .. } => RegisterOp::Write(Some(value.clone())),
            Op::Delete { .. } => RegisterOp::Write(None),
            Op::Read { .. } => RegisterOp::Read,
            _ => continue,
        };
        match &entry.outcome {
            Outcome::Failed { .. } => {}
            Outcome::Unknown { .. } => {
                next_unknown -= 1;
                steps.push((entry.sent_us, 0, n, Step::Send(next_unknown, op, entry)));
            }
            Outcome::Ok { value } => {
                let Some(answered) = entry.answered_us else {
                    return Err(format!("an answer with no time: {entry:?}"));
                };
                let ret = match op {
                    RegisterOp::Read => RegisterRet::ReadOk(value.clone()),
                    RegisterOp::Write(_) => RegisterRet::WriteOk,
                };
                let age = match ret {
                    RegisterRet::ReadOk(_) => entry.stale_us.unwrap_or_default().max(staleness),
                    RegisterRet::WriteOk => 0,
                };
                // A read that said it was answered from a copy up to `Age` old claims nothing of
                // its client's own writes in that time: it is as if another observer read the
                // copy when it was made, so it is its own process, outside the client's order.
                let said_its_age = matches!(ret, RegisterRet::ReadOk(_))
                    && entry.stale_us.is_some_and(|age| age > 0);
                let (process, floor) = if said_its_age {
                    next_unknown -= 1;
                    (next_unknown, 0)
                } else {
                    // (A microsecond after it: at one time, sends are ordered before answers.)
                    let floor = answered_last.get(&entry.client).map_or(0, |at| at + 1);
                    answered_last.insert(entry.client, answered);
                    (entry.client, floor)
                };
                let sent = entry.sent_us.saturating_sub(age).max(floor);
                steps.push((sent, 0, n, Step::Send(process, op, entry)));
                steps.push((answered, 1, n, Step::Answer(process, ret)));
            }
        }
    }
    steps.sort_by_key(|(time, order, n, _)| (*time, *order, *n));
    let mut tester = LinearizabilityTester::new(Register(None::<String>));
    for (_, _, _, step) in steps {
        match step {
            Step::Send(client, op, entry) => {
                tester
                    .on_invoke(client, op)
                    .map_err(|e| format!("{e}: {entry:?}"))?;
            }
            Step::Answer(client, ret) => {
                tester.on_return(client, ret).map_err(|e| e.to_string())?;
            }
        }
    }
    if tester.is_consistent() {
        Ok(())
    } else {
        Err("no order of its operations explains every answer".into())
    }
}

/// The acknowledged write the record's last read does not show, if any.
fn lost_write(entries: &[&Entry]) -> Option<String> {
    let answered = |e: &&&Entry| matches!(e.outcome, Outcome::Ok { .. });
    let is_write = |e: &&&Entry| matches!(e.op, Op::Write { .. } | Op::Delete { .. });
    let last_write = entries
        .iter()
        .filter(is_write)
        .filter(answered)
        .max_by_key(|e| e.answered_us)?;
    let written_by = |e: &Entry| match &e.op {
        Op::Write { value, .. } => Some(value.clone()),
        _ => None,
    };
    // The last read sent after every write was answered (and not answered from a copy older
    // than that).
    let writes_done = entries
        .iter()
        .filter(is_write)
        .filter_map(|e| e.answered_us)
        .max()?;
    let fresh_after =
        |e: &&&Entry| e.sent_us.saturating_sub(e.stale_us.unwrap_or_default()) > writes_done;
    let last_read = entries
        .iter()
        .filter(|e| matches!(e.op, Op::Read { .. }))
        .filter(fresh_after)
        .filter(answered)
        .max_by_key(|e| e.sent_us)?;
    let Outcome::Ok { value: seen } = &last_read.outcome else {
        return None;
    };
    // What it may show: the last acknowledged write, or a write of unknown outcome sent
    // after that one was sent.
    let mut allowed: BTreeSet<Option<String>> = BTreeSet::from([written_by(last_write)]);
    allowed.extend(
        entries
            .iter()
            .filter(is_write)
            .filter(|e| matches!(e.outcome, Outcome::Unknown { .. }))
            .filter(|e| e.sent_us >= last_write.sent_us)
            .map(|e| written_by(e)),
    );
    (!allowed.contains(seen)).then(|| {
        format!(
            "the write of {:?} was acknowledged, the last read shows {seen:?}",
            written_by(last_write)
        )
    })
}

/// The values that two records of a final listing hold.
fn applied_twice(history: &[Entry]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in history {
        if let Op::List { container, records } = &entry.op {
            let mut holders: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for (record, value) in records {
                holders.entry(value).or_default().push(record);
            }
            for (value, records) in holders {
                if records.len() > 1 {
                    found.push(format!("{container}: {value:?} is held by {records:?}"));
                }
            }
        }
    }
    found
}

/// Counts each event's deliveries.
fn deliveries(history: &[Entry], limits: Limits, report: &mut Report) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in history {
        if let Op::Delivered { event, .. } = &entry.op {
            *counts.entry(event).or_default() += 1;
        }
    }
    report.events = counts.len();
    report.min_deliveries = counts.values().copied().min().unwrap_or(0);
    report.max_deliveries = counts.values().copied().max().unwrap_or(0);
    report.over_delivered = counts
        .iter()
        .filter(|(_, n)| **n > limits.max_deliveries)
        .map(|(event, n)| format!("event {event} delivered {n} times"))
        .collect();
}

/// Holds each scheduled publication to one announcing event.
fn publications(history: &[Entry], report: &mut Report) {
    let mut events: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut scheduled = BTreeSet::new();
    for entry in history {
        match &entry.op {
            Op::Delivered {
                event,
                published: Some(record),
            } => {
                events.entry(record).or_default().insert(event);
            }
            Op::Scheduled { record } => {
                scheduled.insert(record.as_str());
            }
            _ => {}
        }
    }
    report.scheduled = scheduled.len();
    for record in scheduled {
        match events.get(record).map_or(0, BTreeSet::len) {
            1 => report.published_once += 1,
            0 => report
                .not_published_once
                .push(format!("{record}: scheduled, never announced")),
            n => report.not_published_once.push(format!(
                "{record}: published {n} times (events {:?})",
                events[record]
            )),
        }
    }
}

/// Leases whose holdings by two holders overlap in time.
fn held_twice(history: &[Entry]) -> Vec<String> {
    let mut by_lease: BTreeMap<&str, Vec<(u64, u64, &str)>> = BTreeMap::new();
    for entry in history {
        if let Op::Lease { lease, holder } = &entry.op {
            let until = entry.answered_us.unwrap_or(u64::MAX);
            by_lease
                .entry(lease)
                .or_default()
                .push((entry.sent_us, until, holder));
        }
    }
    let mut found = Vec::new();
    for (lease, mut holdings) in by_lease {
        holdings.sort();
        // The holding that lasts longest of those begun so far, against each next one.
        let mut longest: Option<(u64, &str)> = None;
        for (from, until, holder) in holdings {
            if let Some((last, first)) = longest
                && from < last
                && first != holder
            {
                found.push(format!("{lease}: held by {first} and {holder} at once"));
            }
            if longest.is_none_or(|(last, _)| until > last) {
                longest = Some((until, holder));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(client: u64, record: &str, value: &str, sent: u64, answered: u64) -> Entry {
        Entry {
            client,
            op: Op::Write {
                record: record.into(),
                value: value.into(),
            },
            sent_us: sent,
            answered_us: Some(answered),
            stale_us: None,
            outcome: Outcome::Ok { value: None },
        }
    }

    fn read(client: u64, record: &str, seen: Option<&str>, sent: u64, answered: u64) -> Entry {
        Entry {
            client,
            op: Op::Read {
                record: record.into(),
            },
            sent_us: sent,
            answered_us: Some(answered),
            stale_us: None,
            outcome: Outcome::Ok {
                value: seen.map(String::from),
            },
        }
    }

    fn unknown(mut entry: Entry) -> Entry {
        entry.answered_us = None;
        entry.outcome = Outcome::Unknown { why: "503".into() };
        entry
    }

    fn failed(mut entry: Entry) -> Entry {
        entry.outcome = Outcome::Failed { why: "507".into() };
        entry
    }

    #[test]
    fn what_each_promise_refuses() {
        // (what, history, linearizable, lost, applied twice)
        let cases: Vec<(&str, Vec<Entry>, bool, bool)> = vec![
            (
                "reads follow writes",
                vec![
                    write(1, "e", "a", 0, 10),
                    read(2, "e", Some("a"), 11, 20),
                    write(1, "e", "b", 21, 30),
                    read(2, "e", Some("b"), 31, 40),
                ],
                true,
                false,
            ),
            (
                "a read concurrent with a write may see either value",
                vec![
                    write(1, "e", "a", 0, 10),
                    write(1, "e", "b", 20, 40),
                    read(2, "e", Some("a"), 25, 30),
                    read(3, "e", Some("b"), 26, 35),
                    read(2, "e", Some("b"), 50, 60),
                ],
                true,
                false,
            ),
            (
                "a stale read after the write was answered",
                vec![
                    write(1, "e", "a", 0, 10),
                    write(1, "e", "b", 20, 30),
                    read(2, "e", Some("a"), 31, 40),
                ],
                false,
                true,
            ),
            (
                "two reads that disagree on the order of two writes",
                vec![
                    write(1, "e", "a", 0, 100),
                    write(2, "e", "b", 0, 100),
                    read(3, "e", Some("a"), 10, 20),
                    read(3, "e", Some("b"), 30, 40),
                    read(4, "e", Some("a"), 50, 60),
                ],
                false,
                false,
            ),
            (
                "an acknowledged write lost",
                vec![write(1, "e", "a", 0, 10), read(2, "e", None, 20, 30)],
                false,
                true,
            ),
            (
                "a write of unknown outcome may land late",
                vec![
                    write(1, "e", "a", 0, 10),
                    unknown(write(1, "e", "b", 20, 0)),
                    read(2, "e", Some("a"), 30, 40),
                    read(2, "e", Some("b"), 50, 60),
                ],
                true,
                false,
            ),
            (
                "a refused write must not land",
                vec![
                    write(1, "e", "a", 0, 10),
                    failed(write(1, "e", "b", 20, 25)),
                    read(2, "e", Some("b"), 30, 40),
                ],
                false,
                true,
            ),
            (
                "a read that says it is up to 15 µs old may show the write before",
                vec![
                    write(1, "e", "a", 0, 10),
                    write(1, "e", "b", 20, 30),
                    Entry {
                        stale_us: Some(15),
                        ..read(2, "e", Some("a"), 31, 40)
                    },
                    read(2, "e", Some("b"), 41, 50),
                ],
                true,
                false,
            ),
            (
                "a read that says it is up to 15 µs old may miss its own client's write",
                vec![
                    write(1, "e", "a", 0, 10),
                    write(1, "e", "b", 20, 30),
                    Entry {
                        stale_us: Some(15),
                        ..read(1, "e", Some("a"), 31, 40)
                    },
                    read(1, "e", Some("b"), 41, 50),
                ],
                true,
                false,
            ),
            (
                "a read that says nothing of its age shows its client's write before it",
                vec![
                    write(1, "e", "a", 0, 10),
                    write(1, "e", "b", 20, 30),
                    read(1, "e", Some("a"), 31, 40),
                    read(1, "e", Some("b"), 41, 50),
                ],
                false,
                false,
            ),
            (
                "a value nobody wrote",
                vec![read(1, "e", Some("z"), 0, 10)],
                false,
                false,
            ),
        ];
        for (what, history, linearizable, lost) in cases {
            let report = check(&history, Limits::default());
            assert_eq!(
                report.not_linearizable.is_empty(),
                linearizable,
                "{what}: {report}"
            );
            assert_eq!(!report.lost.is_empty(), lost, "{what}: {report}");
            assert_eq!(report.holds(), linearizable && !lost, "{what}");
        }
    }

    #[test]
    fn a_value_created_twice_an_event_delivered_too_often_and_a_lease_held_twice_are_found() {
        let list = |records: &[(&str, &str)]| Entry {
            client: 0,
            op: Op::List {
                container: "f".into(),
                records: records
                    .iter()
                    .map(|(r, v)| (r.to_string(), v.to_string()))
                    .collect(),
            },
            sent_us: 100,
            answered_us: Some(110),
            stale_us: None,
            outcome: Outcome::Ok { value: None },
        };
        let delivered = |event: &str| Entry {
            client: 0,
            op: Op::Delivered {
                event: event.into(),
                published: None,
            },
            sent_us: 0,
            answered_us: Some(0),
            stale_us: None,
            outcome: Outcome::Ok { value: None },
        };
        let lease = |holder: &str, from: u64, until: u64| Entry {
            client: 0,
            op: Op::Lease {
                lease: "work".into(),
                holder: holder.into(),
            },
            sent_us: from,
            answered_us: Some(until),
            stale_us: None,
            outcome: Outcome::Ok { value: None },
        };
        let scheduled = |record: &str| Entry {
            client: 0,
            op: Op::Scheduled {
                record: record.into(),
            },
            sent_us: 0,
            answered_us: Some(1),
            stale_us: None,
            outcome: Outcome::Ok { value: None },
        };
        let announced = |event: &str, record: &str| Entry {
            op: Op::Delivered {
                event: event.into(),
                published: Some(record.into()),
            },
            ..delivered(event)
        };
        let good = vec![
            list(&[("1", "a"), ("2", "b")]),
            delivered("x"),
            delivered("x"),
            delivered("y"),
            scheduled("e/1"),
            // One event, delivered twice: published once.
            announced("p1", "e/1"),
            announced("p1", "e/1"),
            lease("s1", 0, 10),
            lease("s2", 10, 20),
            lease("s1", 20, 30),
        ];
        let report = check(&good, Limits::default());
        assert!(report.holds(), "{report}");
        assert_eq!(
            (report.events, report.min_deliveries, report.max_deliveries),
            (3, 1, 2)
        );
        assert_eq!((report.scheduled, report.published_once), (1, 1));

        let bad = vec![
            list(&[("1", "a"), ("2", "a")]),
            delivered("x"),
            delivered("x"),
            delivered("x"),
            delivered("x"),
            lease("s1", 0, 10),
            lease("s2", 5, 20),
            // A long holding, a short one of the same holder inside it, another holder's
            // after that yet inside the long one.
            Entry {
                op: Op::Lease {
                    lease: "other".into(),
                    holder: "s1".into(),
                },
                ..lease("s1", 0, 100)
            },
            Entry {
                op: Op::Lease {
                    lease: "other".into(),
                    holder: "s1".into(),
                },
                ..lease("s1", 5, 6)
            },
            Entry {
                op: Op::Lease {
                    lease: "other".into(),
                    holder: "s3".into(),
                },
                ..lease("s3", 50, 60)
            },
            // Published twice (two events), and never.
            scheduled("e/2"),
            announced("p2", "e/2"),
            announced("p3", "e/2"),
            scheduled("e/3"),
        ];
        let report = check(&bad, Limits::default());
        assert_eq!(report.not_published_once.len(), 2, "{report}");
        assert_eq!(report.applied_twice.len(), 1, "{report}");
        assert_eq!(report.over_delivered.len(), 1, "{report}");
        assert_eq!(report.held_twice.len(), 2, "{report}");
        assert!(!report.holds());
    }

    #[test]
    fn a_history_reads_back_as_it_was_recorded() {
        let entries = vec![
            write(1, "e", "a", 0, 10),
            unknown(write(1, "e", "b", 20, 0)),
            failed(read(2, "e", None, 30, 40)),
        ];
        let mut text = Vec::new();
        for e in &entries {
            text.extend(serde_json::to_vec(e).unwrap());
            text.push(b'\n');
        }
        assert_eq!(load(&text[..]).unwrap(), entries);
        assert!(
            load(&b"{\"client\": 1}\n"[..])
                .unwrap_err()
                .starts_with("line 1")
        );
    }
}
