//! Listeners' countries: an IP-to-country database in MaxMind's format (`maxminddb`), looked
//! up when a download's record is made; the address itself is never stored.

use std::{net::IpAddr, path::Path, sync::Arc};

/// The country of a listener podhost cannot place (ISO 3166's user-assigned code).
pub const UNKNOWN_COUNTRY: &str = "ZZ";

/// An IP-to-country database, shared by a host's processes' threads.
#[derive(Clone)]
pub struct Countries {
    reader: Arc<maxminddb::Reader<Vec<u8>>>,
}

impl std::fmt::Debug for Countries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Countries")
            .field("database", &self.reader.metadata().database_type)
            .finish()
    }
}

/// The record of an address: `country_code` (ip-location-db's databases) or `country.iso_code`
/// (MaxMind's GeoLite2 and GeoIP2 Country).
#[derive(serde::Deserialize)]
struct Place<'a> {
    #[serde(borrow, default)]
    country_code: Option<&'a str>,
    #[serde(borrow, default)]
    country: Option<Country<'a>>,
}

#[derive(serde::Deserialize)]
struct Country<'a> {
    #[serde(borrow, default)]
    iso_code: Option<&'a str>,
}

impl Countries {
    /// Opens the database at `path` (read into memory). An error says why it is not one.
    pub fn open(path: &Path) -> Result<Self, String> {
        let reader = maxminddb::Reader::open_readfile(path)
            .map_err(|e| format!("{} is not an IP-to-country database: {e}", path.display()))?;
        Ok(Countries {
            reader: Arc::new(reader),
        })
    }

    /// The country of `address` (ISO 3166-1 alpha-2, upper case), or [`UNKNOWN_COUNTRY`].
    pub fn of(&self, address: IpAddr) -> String {
        let found = self
            .reader
            .lookup(address)
            .ok()
            .and_then(|result| result.decode::<Place<'_>>().ok().flatten());
        let code = found.and_then(|p| p.country_code.or(p.country.and_then(|c| c.iso_code)));
        match code {
            Some(code) if code.len() == 2 && code.bytes().all(|b| b.is_ascii_alphabetic()) => {
                code.to_ascii_uppercase()
            }
            _ => UNKNOWN_COUNTRY.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The database scripts/test installs (tests/geoip, from npm).
    fn database() -> Countries {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../tests/geoip/node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb",
        );
        Countries::open(&path)
            .unwrap_or_else(|e| panic!("{e}: scripts/test installs it (cd tests/geoip && npm ci)"))
    }

    #[test]
    fn addresses_have_their_countries() {
        let countries = database();
        for (address, country) in [
            ("8.8.8.8", "US"),
            ("193.0.6.139", "NL"),
            ("133.1.1.1", "JP"),
            ("2001:67c:2e8::1", "NL"),
            ("127.0.0.1", UNKNOWN_COUNTRY),
            ("192.0.2.1", UNKNOWN_COUNTRY),
        ] {
            assert_eq!(countries.of(address.parse().unwrap()), country, "{address}");
        }
    }

    #[test]
    fn a_file_that_is_no_database_is_refused() {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), b"not a database").unwrap();
        let refused = Countries::open(file.path()).unwrap_err();
        assert!(
            refused.contains("not an IP-to-country database"),
            "{refused}"
        );
    }
}
