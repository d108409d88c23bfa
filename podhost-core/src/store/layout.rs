//! Where everything lives in the store: every key podhost reads or writes is formatted here,
//! and every key it lists is parsed here. ARCHITECTURE.md's storage table mirrors this file.
//!
//! ```text
//! accounts/{account}/log/{seq:020}.json          an account's log entries (put-if-absent)
//! accounts/{account}/segments/{seq:020}.json     entries seq-255..=seq packed in one object
//! accounts/{account}/snapshots/{seq:020}.json    its state after entry seq: a manifest of
//!                                                parts (newest two kept)
//! accounts/{account}/snapshots/parts/{sha256}.json  one part of a snapshot, content-addressed
//! accounts/{account}/blobs/{uuid}                media bytes, immutable
//! accounts/{account}/results/{job}/{file}        a job's outputs (waveform.json/.dat, silence.json)
//! accounts/{account}/tokens/{token}/used         when a personal token was last used
//! accounts/{account}/stats/raw/{day}/{name}.json a flushed batch of download records
//! accounts/{account}/stats/carry/{day}.json      listeners inside a 24-hour window at day's end
//! accounts/{account}/stats/days/{day}.json       a closed day: downloads per episode and app
//! accounts/{account}/webhooks/{wh}/cursor        the last event finished for a subscription
//! accounts/{account}/webhooks/{wh}/deliveries/{seq:020}.json   one event's delivery
//! accounts/{account}/webhooks/{wh}/claims/{seq:020}-{n:03}     who sends attempt n
//! claims/feeds/{hex of feed id}                  deployment-wide feed id ownership
//! claims/tokens/{token id}                       which account a token belongs to
//! claims/clients/{client id}                     which account registered an OAuth client
//! claims/grants/{grant id}                       which account gave an OAuth grant
//! oauth/codes/{sha256 of code}[.used]            an authorization code; its use, once
//! sessions/{session}                             a signed-in session (the cookie's secret hashed)
//! throttle/{kind}/{sha256 of key}                failed attempts of an account or an address
//! jobs/queue/{account}/{job}                     a job waiting or running
//! jobs/lease/{account}/{job}/{attempt:04}        who runs an attempt, until when
//! ratelimit/{window:010}/{key}/{n:04}            lease n of a key's requests in a window
//! ratelimit/{window:010}/swept                   who sweeps the windows before the previous one
//! stats/salts/{day}                              the day's random salt
//! stats/pending/{day}/{account}                  this account has raw records of the day
//! directory/{hex of feed id}                    a public podcast: its account and title
//! index/directory.json                           the directory in one object, as last listed
//! work/deliver/{account}                         this account has events to deliver
//! work/due/{day}/{unix seconds:011}-{account}    a publication of the account scheduled then
//! work/leases/{unit}/{epoch:020}                 which server holds a unit of work, until when
//! work/repair/{period:010}                       who repairs the work index in a period
//! probe/{random}                                 a start-up check of conditional writes, deleted
//! store/format/{n:06}.json                       the store raised to format n (put-if-absent)
//! servers/{owner}.json                           a running server: its release, renewed
//! store/public_url.json                          the public URL the last server started with
//! ```
//!
//! A catalog partition (`accounts/{account}`) keeps its log and snapshots under its root; the
//! catalog knows the root, not what it belongs to.

use jiff::civil::Date;
use object_store::path::Path;

use crate::{
    ids::{AccountId, FeedId, JobId, TokenId},
    model::BlobKey,
};

const ACCOUNTS: &str = "accounts";

/// Where the accounts are (listed with a delimiter, one folder per account).
pub(crate) fn accounts() -> Path {
    Path::from(ACCOUNTS)
}

/// An account's folder: the root of its catalog partition.
pub(crate) fn account(account: &AccountId) -> Path {
    Path::from_iter([ACCOUNTS, account.as_str()])
}

/// The account of an account folder listed under [`accounts`].
pub(crate) fn account_of(folder: &Path) -> Option<AccountId> {
    AccountId::new(folder.filename()?).ok()
}

fn seq_name(seq: u64) -> String {
    format!("{seq:020}.json")
}

fn seq_of(path: &Path) -> Option<u64> {
    path.filename()?.strip_suffix(".json")?.parse().ok()
}

/// Entry `seq` of the log of the partition at `root`.
pub(crate) fn log_entry(root: &Path, seq: u64) -> Path {
    root.clone().join("log").join(seq_name(seq))
}

/// The snapshots of the partition at `root`.
pub(crate) fn snapshots(root: &Path) -> Path {
    root.clone().join("snapshots")
}

/// The snapshot after entry `seq` of the partition at `root`.
pub(crate) fn snapshot(root: &Path, seq: u64) -> Path {
    snapshots(root).join(seq_name(seq))
}

/// The entry number of a snapshot listed under [`snapshots`].
pub(crate) fn snapshot_seq(path: &Path) -> Option<u64> {
    seq_of(path)
}

/// The parts of the snapshots of the partition at `root`.
pub(crate) fn snapshot_parts(root: &Path) -> Path {
    snapshots(root).join("parts")
}

/// The snapshot part whose bytes hash to `hash` (lower-case hex SHA-256).
pub(crate) fn snapshot_part(root: &Path, hash: &str) -> Path {
    snapshot_parts(root).join(format!("{hash}.json"))
}

/// The hash of a part listed under [`snapshot_parts`].
pub(crate) fn snapshot_part_hash(path: &Path) -> Option<&str> {
    path.filename()?.strip_suffix(".json")
}

/// The log segments of the partition at `root`.
pub(crate) fn segments(root: &Path) -> Path {
    root.clone().join("segments")
}

/// The log segment that ends with entry `last`.
pub(crate) fn segment(root: &Path, last: u64) -> Path {
    segments(root).join(seq_name(last))
}

/// The last entry of a segment listed under [`segments`].
pub(crate) fn segment_last(path: &Path) -> Option<u64> {
    seq_of(path)
}

/// An account's blobs.
pub(crate) fn blobs(account: &AccountId) -> Path {
    self::account(account).join("blobs")
}

/// The bytes of one blob.
pub(crate) fn blob(account: &AccountId, blob: &BlobKey) -> Path {
    blobs(account).join(blob.as_str())
}

/// The key of a blob listed under [`blobs`].
pub(crate) fn blob_key(path: &Path) -> Option<&str> {
    path.filename()
}

/// Output `file` of job `job`.
pub(crate) fn job_result(account: &AccountId, job: &JobId, file: &str) -> Path {
    self::account(account)
        .join("results")
        .join(job.as_str())
        .join(file)
}

/// The claim of a feed id, deployment-wide (hex, so that any id is one path segment).
pub(crate) fn feed_claim(feed: &FeedId) -> Path {
    Path::from_iter(["claims", "feeds", &hex::encode(feed.as_str())])
}

/// The claim of a token id: which account it belongs to.
pub(crate) fn token_claim(token: &TokenId) -> Path {
    Path::from_iter(["claims", "tokens", token.as_str()])
}

/// The claim of a member id: which account it is a member of (an invitation finds its account
/// through it).
pub(crate) fn member_claim(id: &crate::ids::MemberId) -> Path {
    Path::from_iter(["claims", "members", id.as_str()])
}

/// When a member last acted (to the minute).
pub(crate) fn member_seen(account: &AccountId, id: &crate::ids::MemberId) -> Path {
    self::account(account)
        .join("members")
        .join(id.as_str())
        .join("seen")
}

/// A person (hex of the login, so that any login is one path segment): their password's hash.
pub(crate) fn person(login: &crate::ids::Login) -> Path {
    Path::from_iter(["people", &hex::encode(login.as_str()), "person.json"])
}

/// The accounts a person joined (markers; each account's catalog decides).
pub(crate) fn person_accounts(login: &crate::ids::Login) -> Path {
    Path::from_iter(["people", &hex::encode(login.as_str()), "accounts"])
}

/// The marker that a person joined an account.
pub(crate) fn person_account(login: &crate::ids::Login, account: &AccountId) -> Path {
    person_accounts(login).join(account.as_str())
}

/// When a personal token was last used (to the minute).
pub(crate) fn token_used(account: &AccountId, token: &TokenId) -> Path {
    self::account(account)
        .join("tokens")
        .join(token.as_str())
        .join("used")
}

/// An object of the start-up check that the store honours conditional writes.
pub(crate) fn probe(name: &str) -> Path {
    Path::from_iter(["probe", name])
}

/// Where the store's format markers are.
pub(crate) fn format_prefix() -> Path {
    Path::from("store/format")
}

/// The marker of the store raised to format `n`.
pub(crate) fn format(n: u32) -> Path {
    Path::from(format!("store/format/{n:06}.json"))
}

/// The format a marker's key names.
pub(crate) fn parse_format(path: &Path) -> Option<u32> {
    path.filename()?.strip_suffix(".json")?.parse().ok()
}

/// Where the accounts are (a new store has nothing under it).
pub(crate) fn accounts_prefix() -> Path {
    Path::from(ACCOUNTS)
}

/// The public URL the last server to start recorded (commands' links start with it).
pub(crate) fn public_url() -> Path {
    Path::from("store/public_url.json")
}

/// Where the servers' records are.
pub(crate) fn servers_prefix() -> Path {
    Path::from("servers")
}

/// A running server's record.
pub(crate) fn server(owner: &str) -> Path {
    Path::from_iter(["servers", &format!("{owner}.json")])
}

/// A signed-in session of the key-management site.
pub(crate) fn session(id: &crate::ids::SessionId) -> Path {
    Path::from_iter(["sessions", id.as_str()])
}

/// The failures of one key (a hash) of one kind of throttled attempt.
pub(crate) fn throttle(kind: &str, key_hash: &str) -> Path {
    Path::from_iter(["throttle", kind, key_hash])
}

/// The claim of an OAuth client id: which account registered it.
pub(crate) fn client_claim(id: &crate::ids::ClientId) -> Path {
    Path::from_iter(["claims", "clients", id.as_str()])
}

/// The claim of a grant id: which account gave it.
pub(crate) fn grant_claim(id: &crate::ids::GrantId) -> Path {
    Path::from_iter(["claims", "grants", id.as_str()])
}

/// An OAuth authorization code, by the SHA-256 of the code.
pub(crate) fn oauth_code(code_hash: &str) -> Path {
    Path::from_iter(["oauth", "codes", code_hash])
}

/// The mark that an authorization code was exchanged (holding the grant it gave).
pub(crate) fn oauth_code_used(code_hash: &str) -> Path {
    Path::from_iter(["oauth", "codes", &format!("{code_hash}.used")])
}

/// The queue of waiting and running jobs.
pub(crate) fn job_queue() -> Path {
    Path::from_iter(["jobs", "queue"])
}

/// The queue marker of one job.
pub(crate) fn queued_job(account: &AccountId, job: &JobId) -> Path {
    Path::from_iter(["jobs", "queue", account.as_str(), job.as_str()])
}

/// The account and job of a marker listed under [`job_queue`].
pub(crate) fn queued_job_of(path: &Path) -> Option<(AccountId, JobId)> {
    match path.parts().collect::<Vec<_>>().as_slice() {
        [_, _, account, job] => Some((
            AccountId::new(account.as_ref()).ok()?,
            job.as_ref().parse().ok()?,
        )),
        _ => None,
    }
}

/// The leases of a job's attempts.
pub(crate) fn job_leases(account: &AccountId, job: &JobId) -> Path {
    Path::from_iter(["jobs", "lease", account.as_str(), job.as_str()])
}

/// The lease of one attempt.
pub(crate) fn job_lease(account: &AccountId, job: &JobId, attempt: u32) -> Path {
    job_leases(account, job).join(format!("{attempt:04}"))
}

/// The attempt of a lease listed under [`job_leases`].
pub(crate) fn lease_attempt(path: &Path) -> Option<u32> {
    path.filename()?.parse().ok()
}

fn stats(account: &AccountId) -> Path {
    self::account(account).join("stats")
}

/// The daily salts.
pub(crate) fn salts() -> Path {
    Path::from_iter(["stats", "salts"])
}

/// The salt of one day.
pub(crate) fn salt(day: Date) -> Path {
    salts().join(day.to_string())
}

/// The day of a salt listed under [`salts`].
pub(crate) fn salt_day(path: &Path) -> Option<Date> {
    path.filename()?.parse().ok()
}

/// The markers of accounts with raw records, by day.
pub(crate) fn pending() -> Path {
    Path::from_iter(["stats", "pending"])
}

/// The marker: `account` has raw records of `day`.
pub(crate) fn pending_day(day: Date, account: &AccountId) -> Path {
    pending().join(day.to_string()).join(account.as_str())
}

/// The day and account of a marker listed under [`pending`].
pub(crate) fn pending_of(path: &Path) -> Option<(Date, AccountId)> {
    match path.parts().collect::<Vec<_>>().as_slice() {
        [_, _, day, account] => Some((
            day.as_ref().parse().ok()?,
            AccountId::new(account.as_ref()).ok()?,
        )),
        _ => None,
    }
}

/// An account's raw download records, one folder per day.
pub(crate) fn raw_days(account: &AccountId) -> Path {
    stats(account).join("raw")
}

/// The raw batches of one day.
pub(crate) fn raw_day(account: &AccountId, day: Date) -> Path {
    raw_days(account).join(day.to_string())
}

/// The day of a folder listed under [`raw_days`].
pub(crate) fn raw_day_of(folder: &Path) -> Option<Date> {
    folder.filename()?.parse().ok()
}

/// One flushed batch, named by its writer.
pub(crate) fn raw_batch(account: &AccountId, day: Date, name: &str) -> Path {
    raw_day(account, day).join(format!("{name}.json"))
}

/// An account's closed days.
pub(crate) fn closed_days(account: &AccountId) -> Path {
    stats(account).join("days")
}

/// The day of a file listed under [`closed_days`].
pub(crate) fn closed_day_of(path: &Path) -> Option<Date> {
    path.filename()?.strip_suffix(".json")?.parse().ok()
}

/// A closed day.
pub(crate) fn closed_day(account: &AccountId, day: Date) -> Path {
    closed_days(account).join(format!("{day}.json"))
}

/// The carries of an account.
pub(crate) fn carries(account: &AccountId) -> Path {
    stats(account).join("carry")
}

/// The carry at the end of one day.
pub(crate) fn carry(account: &AccountId, day: Date) -> Path {
    carries(account).join(format!("{day}.json"))
}

/// The day of a carry listed under [`carries`].
pub(crate) fn carry_day(path: &Path) -> Option<Date> {
    path.filename()?.strip_suffix(".json")?.parse().ok()
}

fn webhook(account: &AccountId, webhook: &str) -> Path {
    self::account(account).join("webhooks").join(webhook)
}

/// A subscription's cursor.
pub(crate) fn webhook_cursor(account: &AccountId, id: &str) -> Path {
    webhook(account, id).join("cursor")
}

/// A subscription's deliveries.
pub(crate) fn webhook_deliveries(account: &AccountId, id: &str) -> Path {
    webhook(account, id).join("deliveries")
}

/// The delivery of event `seq`.
pub(crate) fn webhook_delivery(account: &AccountId, id: &str, seq: u64) -> Path {
    webhook_deliveries(account, id).join(seq_name(seq))
}

/// The claim of attempt `attempt` of event `seq`.
pub(crate) fn webhook_claim(account: &AccountId, id: &str, seq: u64, attempt: usize) -> Path {
    webhook(account, id)
        .join("claims")
        .join(format!("{seq:020}-{attempt:03}"))
}

/// The rate limit's leases, one folder per window.
pub(crate) fn rate_windows() -> Path {
    Path::from("ratelimit")
}

fn rate_window(window: u64) -> Path {
    rate_windows().join(format!("{window:010}"))
}

/// The window of a folder listed under [`rate_windows`].
pub(crate) fn rate_window_of(folder: &Path) -> Option<u64> {
    folder.filename()?.parse().ok()
}

/// Lease `n` of the requests of `key` (a hash, one segment) in `window`.
pub(crate) fn rate_lease(window: u64, key: &str, n: u32) -> Path {
    rate_window(window).join(key).join(format!("{n:04}"))
}

/// The marker of the sweep started in `window` (of the windows before the previous one).
pub(crate) fn rate_sweep(window: u64) -> Path {
    rate_window(window).join("swept")
}

/// The markers of accounts with events to deliver.
pub(crate) fn deliveries() -> Path {
    Path::from_iter(["work", "deliver"])
}

/// The marker: `account` has events to deliver.
pub(crate) fn delivery_marker(account: &AccountId) -> Path {
    deliveries().join(account.as_str())
}

/// The account of a marker listed under [`deliveries`].
pub(crate) fn delivery_marker_of(path: &Path) -> Option<AccountId> {
    AccountId::new(path.filename()?).ok()
}

/// The keys of scheduled publications, one folder per UTC day.
pub(crate) fn due() -> Path {
    Path::from_iter(["work", "due"])
}

/// The key: a publication of `account` is scheduled at `at`. The key's second is `at`'s,
/// rounded up: a key is never due before its publication.
pub(crate) fn due_key(at: jiff::Timestamp, account: &AccountId) -> Path {
    let second = at.as_second() + i64::from(at.subsec_nanosecond() > 0);
    let rounded = jiff::Timestamp::from_second(second).unwrap_or(at);
    let day = rounded.to_zoned(jiff::tz::TimeZone::UTC).date();
    due()
        .join(day.to_string())
        .join(format!("{:011}-{}", second.max(0), account.as_str()))
}

/// The day of a folder listed under [`due`].
pub(crate) fn due_day_of(folder: &Path) -> Option<Date> {
    folder.filename()?.parse().ok()
}

/// The time and account of a key listed under [`due`].
pub(crate) fn due_key_of(path: &Path) -> Option<(jiff::Timestamp, AccountId)> {
    let (seconds, account) = path.filename()?.split_once('-')?;
    Some((
        jiff::Timestamp::from_second(seconds.parse().ok()?).ok()?,
        AccountId::new(account).ok()?,
    ))
}

/// What a server writes to read the store's clock (see `StoreClock`): one object per server.
pub(crate) fn clock_probe(owner: &str) -> Path {
    Path::from(format!("work/clock/{owner}"))
}

/// The holdings of a unit of background work (`deliver/{account}`, `due/{account}`), one
/// object per epoch ([`crate::lease`]).
pub(crate) fn work_leases(unit: &str) -> Path {
    Path::from(format!("work/leases/{unit}"))
}

/// The claim on repairing the work index in `period`.
pub(crate) fn work_repair(period: i64) -> Path {
    Path::from_iter(["work", "repair", &format!("{period:010}")])
}

/// The claims on repairs.
pub(crate) fn work_repairs() -> Path {
    Path::from_iter(["work", "repair"])
}

/// The deployment's directory of public podcasts.
pub(crate) fn directory() -> Path {
    Path::from("directory")
}

/// A public podcast's entry in the directory.
pub(crate) fn directory_entry(feed: &FeedId) -> Path {
    directory().join(hex::encode(feed.as_str()))
}

/// The directory in one object: every entry with the version it was listed at (a server that
/// starts reads it instead of one object per podcast).
pub(crate) fn directory_index() -> Path {
    Path::from_iter(["index", "directory.json"])
}

/// The podcast of an entry listed under [`directory`].
pub(crate) fn directory_entry_of(path: &Path) -> Option<FeedId> {
    let bytes = hex::decode(path.filename()?).ok()?;
    FeedId::new(std::str::from_utf8(&bytes).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_parsed_back() {
        let alice = AccountId::new("alice").unwrap();
        let job: JobId = "job_abcdefghijklmnopqrst".parse().unwrap();
        let day: Date = "2026-03-04".parse().unwrap();
        assert_eq!(
            queued_job_of(&queued_job(&alice, &job)),
            Some((alice.clone(), job.clone()))
        );
        assert_eq!(lease_attempt(&job_lease(&alice, &job, 7)), Some(7));
        assert_eq!(snapshot_seq(&snapshot(&account(&alice), 256)), Some(256));
        assert_eq!(salt_day(&salt(day)), Some(day));
        assert_eq!(
            pending_of(&pending_day(day, &alice)),
            Some((day, alice.clone()))
        );
        assert_eq!(raw_day_of(&raw_day(&alice, day)), Some(day));
        assert_eq!(carry_day(&carry(&alice, day)), Some(day));
        assert_eq!(
            delivery_marker_of(&delivery_marker(&alice)),
            Some(alice.clone())
        );
        let at: jiff::Timestamp = "2026-11-26T10:00:00Z".parse().unwrap();
        assert_eq!(
            due_key(at, &alice).as_ref(),
            "work/due/2026-11-26/01795687200-alice"
        );
        assert_eq!(due_key_of(&due_key(at, &alice)), Some((at, alice.clone())));
        // Never due before its time: a fraction of a second rounds up.
        let just_after = at + jiff::SignedDuration::from_millis(1);
        assert_eq!(
            due_key_of(&due_key(just_after, &alice)),
            Some((at + jiff::SignedDuration::from_secs(1), alice.clone()))
        );
        let feed = FeedId::new("a b").unwrap();
        assert_eq!(directory_entry_of(&directory_entry(&feed)), Some(feed));
        assert_eq!(account_of(&account(&alice)), Some(alice.clone()));
        assert_eq!(
            rate_lease(29_462_400, "0f", 7).as_ref(),
            "ratelimit/0029462400/0f/0007"
        );
        assert_eq!(rate_window_of(&rate_window(29_462_400)), Some(29_462_400));
        assert_eq!(
            log_entry(&account(&alice), 3).as_ref(),
            "accounts/alice/log/00000000000000000003.json"
        );
        assert_eq!(
            feed_claim(&FeedId::new("a b").unwrap()).as_ref(),
            "claims/feeds/612062"
        );
    }
}
