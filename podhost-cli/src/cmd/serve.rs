//! `podhost serve`: the REST API server.

use std::net::SocketAddr;

use clap::Args;
use podhost_core::{Error, PodcastHost, Scopes};
use podhost_http::HttpConfig;

use crate::{context::Env, error::Failure};

/// Server options.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, env = "PODHOST_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Requests per token per minute, across every server on the store.
    #[arg(long, env = "PODHOST_RATE_LIMIT", default_value_t = 180)]
    pub rate_limit: u32,
    /// Addresses never throttled after failed sign-ins or unknown tokens (a health checker, a
    /// test client): IP addresses or CIDR ranges, comma-separated. The rate limit still applies.
    #[arg(long, env = "PODHOST_THROTTLE_EXEMPT", value_delimiter = ',', value_parser = address_range)]
    pub throttle_exempt: Vec<ipnet::IpNet>,
    /// An IP-to-country database in MaxMind's format (ip-location-db's
    /// geo-whois-asn-country.mmdb, GeoLite2 Country, ...): each download is counted under its
    /// listener's country. Without one every country is `ZZ`.
    #[arg(long, env = "PODHOST_GEOIP_DB", value_name = "PATH")]
    pub geoip_db: Option<std::path::PathBuf>,
    /// Behind a trusted reverse proxy: count downloads by the last `X-Forwarded-For` address.
    #[arg(long, env = "PODHOST_TRUST_PROXY", action = clap::ArgAction::SetTrue, value_parser = clap::builder::BoolishValueParser::new())]
    pub trust_proxy: bool,
    /// With an s3:// store: answer enclosure downloads with a redirect to a presigned S3 URL
    /// (valid one hour) instead of streaming them through podhost.
    #[arg(long, env = "PODHOST_PRESIGN_DOWNLOADS", action = clap::ArgAction::SetTrue, value_parser = clap::builder::BoolishValueParser::new())]
    pub presign_downloads: bool,
    /// Seconds a background job's claim holds without renewal: a job whose server died is
    /// taken over by another (or the restarted) server after this.
    #[arg(long, env = "PODHOST_JOB_LEASE_SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub job_lease_seconds: u64,
    /// Minutes a signed-in session of the key-management site lasts without being used.
    #[arg(long, env = "PODHOST_SESSION_IDLE_MINUTES", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=525_600))]
    pub session_idle_minutes: u64,
    /// Hours a signed-in session lasts at most, used or not.
    #[arg(long, env = "PODHOST_SESSION_MAX_HOURS", default_value_t = 12, value_parser = clap::value_parser!(u64).range(1..=8_760))]
    pub session_max_hours: u64,
    /// Also serve `GET /metrics` without a token on this address (for a Prometheus scraper on
    /// an internal network); on the main address it needs a token of scope `metrics`.
    #[arg(long, env = "PODHOST_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// Megabytes of account catalogs this server keeps open (estimated from their contents):
    /// past it, the least recently used account is let go and read again from the store when
    /// next asked for.
    #[arg(long, env = "PODHOST_CATALOG_CACHE_MB", default_value_t = CATALOG_CACHE_MB, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub catalog_cache_mb: u64,
    /// Minutes an OAuth access token works (its refresh token gets new ones).
    #[arg(long, env = "PODHOST_ACCESS_TOKEN_MINUTES", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=10_080))]
    pub access_token_minutes: u64,
    /// Requests this server works on at once (a download counts until its answer starts): past
    /// it a request is shed at once with 503 and Retry-After, so that a store that stalls cannot
    /// pile requests, and their memory, up without bound.
    #[arg(long, env = "PODHOST_MAX_IN_FLIGHT", default_value_t = HttpConfig::default().max_in_flight, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub max_in_flight: usize,
    /// Appends a line of JSON to this file for every holding of a unit of background work by
    /// this server (the unit, the server, from and until when): the fault harness's record of
    /// who held what, which its checker searches for two holders at once.
    #[arg(long, env = "PODHOST_LEASE_JOURNAL", value_name = "PATH")]
    pub lease_journal: Option<std::path::PathBuf>,
}

/// The file `--lease-journal` names, as the core's witness of leases.
struct LeaseJournal(std::sync::Mutex<std::fs::File>);

impl podhost_core::LeaseWitness for LeaseJournal {
    fn held(&self, lease: &str, holder: &str, from: std::time::Instant, until: std::time::Instant) {
        use podhost_core::lock::Locked;
        use std::io::Write;
        let held = podhost_core::LeaseHeld::new(lease, holder, from, until);
        let line = serde_json::to_string(&held).expect("a holding is JSON");
        if let Err(e) = writeln!(self.0.locked(), "{line}") {
            tracing::warn!(error = %e, "could not write the lease journal");
        }
    }
}

/// The default of `--catalog-cache-mb`: the core's.
const CATALOG_CACHE_MB: u64 = (podhost_core::CatalogConfig::DEFAULT_CACHE_BYTES >> 20) as u64;

/// An IP address (one host) or a CIDR range.
fn address_range(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("`{text}` is neither an IP address nor a CIDR range (10.0.0.0/8)"))
}

impl super::Run for ServeArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let args = self;
        let countries = match &args.geoip_db {
            Some(path) => Some(
                podhost_core::stats::geo::Countries::open(path)
                    .map_err(|e| crate::error::Failure::invalid(format!("--geoip-db: {e}")))?,
            ),
            None => None,
        };
        let journal: Option<std::sync::Arc<dyn podhost_core::LeaseWitness>> =
            match &args.lease_journal {
                Some(path) => {
                    let file = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                        .map_err(|e| {
                            Failure::invalid(format!("--lease-journal {}: {e}", path.display()))
                        })?;
                    Some(std::sync::Arc::new(LeaseJournal(std::sync::Mutex::new(
                        file,
                    ))))
                }
                None => None,
            };
        // Bound first: without --public-url, links start with the address bound (a port of 0
        // is the one the system chose).
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", args.listen))?;
        let bound = listener.local_addr()?;
        let (listening, guessed) = public_url_of(bound);
        let host = env.host_with(
            crate::context::DefaultPublicUrl::Listening(&listening),
            |config, opened| {
                config.jobs.lease = std::time::Duration::from_secs(args.job_lease_seconds);
                config.rate_limit = args.rate_limit;
                config.leases.witness = journal.clone();
                config.catalog.cache_bytes =
                    usize::try_from(args.catalog_cache_mb << 20).unwrap_or(usize::MAX);
                config.throttle_exempt = args.throttle_exempt.clone();
                config.countries = countries.clone();
                config.sessions.idle =
                    std::time::Duration::from_secs(args.session_idle_minutes * 60);
                config.sessions.absolute =
                    std::time::Duration::from_secs(args.session_max_hours * 3600);
                config.oauth.access_token_lifetime =
                    std::time::Duration::from_secs(args.access_token_minutes * 60);
                if args.presign_downloads {
                    let presigner = opened.presigner.clone().ok_or_else(|| {
                        Failure::invalid("--presign-downloads needs an s3:// store")
                    })?;
                    config.presigned_downloads = Some(presigner);
                }
                Ok(())
            },
        )?;
        if guessed && env.public_url().is_none() {
            env.say(&format!(
                "note: links start with {listening}, a guess: {bound} is every address of this \
                 machine; give --public-url URL (or PODHOST_PUBLIC_URL), the address listeners \
                 reach this server at"
            ));
        }
        serve(env, host, args, listener).await
    }
}

/// The public URL of a server bound to `bound` when no `--public-url` is given: `http://` the
/// address, and whether it is a guess (bound to every address, `0.0.0.0` or `::`, it names
/// the machine's loopback address).
fn public_url_of(bound: SocketAddr) -> (String, bool) {
    match bound.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => {
            (format!("http://127.0.0.1:{}", bound.port()), true)
        }
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => {
            (format!("http://[::1]:{}", bound.port()), true)
        }
        _ => (format!("http://{bound}"), false),
    }
}

async fn serve(
    env: &Env,
    host: PodcastHost,
    args: ServeArgs,
    listener: tokio::net::TcpListener,
) -> anyhow::Result<()> {
    // Several servers may share the store: without conditional writes they would erase each
    // other's commits, so such a store is refused before anything is served.
    host.check_store().await?;
    // A store of a newer format than this release reads is refused, naming the release it
    // needs: this server would not understand, and could rewrite, what it holds.
    host.store_format().await?;
    bootstrap(env, &host).await?;
    let config = HttpConfig {
        trust_forwarded_for: args.trust_proxy,
        max_in_flight: args.max_in_flight,
        ..HttpConfig::default()
    };
    env.say(&start_line(
        &listener.local_addr()?.to_string(),
        host.urls().base(),
    ));
    let mut server = podhost_http::Server::new(host).config(config);
    if let Some(address) = args.metrics_listen {
        let metrics = std::net::TcpListener::bind(address)
            .map_err(|e| anyhow::anyhow!("cannot listen on {address} (metrics): {e}"))?;
        env.say(&format!(
            "metrics on http://{}/metrics",
            metrics.local_addr()?
        ));
        server = server.metrics_listener(metrics);
    }
    // The API and every background loop (statistics, job workers, webhook deliveries) until
    // SIGTERM or Ctrl-C.
    server
        .run(listener, podhost_http::shutdown_signal())
        .await?;
    env.say("stopped");
    Ok(())
}

/// The line `serve` says once it listens: the address, and the public URL links start with
/// only when it is not `http://` that address (`serving on http://127.0.0.1:8080 (Ctrl-C
/// stops)`; `serving on http://0.0.0.0:8080, links start with https://pod.example (Ctrl-C
/// stops)`).
fn start_line(address: &str, public_url: &str) -> String {
    let listening = format!("http://{address}");
    if public_url.trim_end_matches('/') == listening {
        format!("serving on {listening} (Ctrl-C stops)")
    } else {
        format!("serving on {listening}, links start with {public_url} (Ctrl-C stops)")
    }
}

/// On a store without accounts: creates `admin` and prints a token with every scope, once.
async fn bootstrap(env: &Env, host: &PodcastHost) -> anyhow::Result<()> {
    if !host.access().list_accounts().await?.is_empty() {
        return Ok(());
    }
    match host.access().create_account("admin").await {
        Ok(_) => {}
        // Another process bootstrapped at the same moment: its token is the one.
        Err(Error::Conflict { .. }) => return Ok(()),
        Err(e) => return Err(e.into()),
    }
    let owner = host.access().owner(&"admin".parse()?).await?;
    let token = host
        .access()
        .create_token(&owner, "bootstrap", Scopes::all())
        .await?;
    env.say("created the account admin. Its API token, with every scope, is shown this once:");
    println!("{}", token.secret);
    env.say(&format!(
        "try: curl -H \"Authorization: Bearer $TOKEN\" {}/api/feeds",
        host.urls().base()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::start_line;

    #[test]
    fn the_start_line_says_each_thing_once() {
        assert_eq!(
            start_line("127.0.0.1:18080", "http://127.0.0.1:18080"),
            "serving on http://127.0.0.1:18080 (Ctrl-C stops)"
        );
        assert_eq!(
            start_line("0.0.0.0:8080", "https://pod.example"),
            "serving on http://0.0.0.0:8080, links start with https://pod.example (Ctrl-C stops)"
        );
    }
}
