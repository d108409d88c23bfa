//! How dates, numbers, durations and country names are written in each language: CLDR's forms,
//! through ICU4X and its compiled data (every language CLDR knows, so a new file of messages
//! brings its forms with it).

use std::sync::OnceLock;

use fluent_bundle::FluentValue;
use icu::{
    calendar::{Date, Iso},
    datetime::{
        DateTimeFormatter,
        fieldsets::{self, YMD},
        input::{DateTime, Time},
        options::TimePrecision,
    },
    decimal::{DecimalFormatter, input::Decimal},
    experimental::displaynames::{DisplayNamesOptions, multi::RegionDisplayNames},
    locale::subtags::Region,
};
use intl_memoizer::{Memoizable, concurrent::IntlLangMemoizer};
use jiff::{Timestamp, tz::TimeZone};

use super::{Locale, files::FILES};

/// A language's formatters, made once.
struct Forms {
    date: DateTimeFormatter<YMD>,
    month: DateTimeFormatter<fieldsets::YM>,
    date_time: DateTimeFormatter<fieldsets::YMDT>,
    numbers: DecimalFormatter,
    regions: RegionDisplayNames,
}

fn icu_locale(tag: &str) -> icu::locale::Locale {
    icu::locale::Locale::try_from_str(tag)
        .unwrap_or_else(|e| panic!("locales/{tag}.ftl: {tag} is no language tag: {e}"))
}

impl Forms {
    fn new(tag: &str) -> Forms {
        let locale = icu_locale(tag);
        fn data(tag: &str, what: &str, e: impl std::fmt::Display) -> ! {
            panic!("CLDR has no {what} for {tag}: {e}")
        }
        Forms {
            date: DateTimeFormatter::try_new(locale.clone().into(), YMD::long())
                .unwrap_or_else(|e| data(tag, "dates", e)),
            month: DateTimeFormatter::try_new(locale.clone().into(), fieldsets::YM::medium())
                .unwrap_or_else(|e| data(tag, "months", e)),
            date_time: DateTimeFormatter::try_new(
                locale.clone().into(),
                fieldsets::YMDT::medium().with_time_precision(TimePrecision::Minute),
            )
            .unwrap_or_else(|e| data(tag, "dates and times", e)),
            numbers: DecimalFormatter::try_new(locale.clone().into(), Default::default())
                .unwrap_or_else(|e| data(tag, "numbers", e)),
            regions: RegionDisplayNames::try_new(locale.into(), DisplayNamesOptions::default())
                .unwrap_or_else(|e| data(tag, "country names", e)),
        }
    }
}

fn forms(locale: Locale) -> &'static Forms {
    static FORMS: OnceLock<Vec<Forms>> = OnceLock::new();
    &FORMS.get_or_init(|| FILES.iter().map(|(tag, _)| Forms::new(tag)).collect())
        [usize::from(locale.0)]
}

/// A day of jiff's calendar as ICU4X's (the same proleptic Gregorian calendar).
fn iso(day: jiff::civil::Date) -> Option<Date<Iso>> {
    Date::try_new_iso(day.year().into(), day.month() as u8, day.day() as u8).ok()
}

/// A number as CLDR writes it: grouped ("1,234", "1.234"), one decimal place at most.
fn decimal(numbers: &DecimalFormatter, n: f64) -> String {
    let tenths = (n * 10.0).round() as i64;
    let mut value = Decimal::from(tenths);
    value.multiply_pow10(-1);
    if tenths % 10 == 0 {
        value = Decimal::from(tenths / 10);
    }
    numbers.format_to_string(&value)
}

/// The number formatter of a bundle's language, made once per bundle by its memoizer.
struct Numbers(DecimalFormatter);

impl Memoizable for Numbers {
    type Args = ();
    type Error = String;

    fn construct(lang: unic_langid::LanguageIdentifier, _: ()) -> Result<Self, String> {
        let locale = icu_locale(&lang.to_string());
        DecimalFormatter::try_new(locale.into(), Default::default())
            .map(Numbers)
            .map_err(|e| e.to_string())
    }
}

/// Fluent's hook for writing a value: numbers in the bundle's language's forms.
pub(super) fn format_value(value: &FluentValue<'_>, memoizer: &IntlLangMemoizer) -> Option<String> {
    match value {
        FluentValue::Number(n) => memoizer
            .with_try_get::<Numbers, _, _>((), |numbers| decimal(&numbers.0, n.value))
            .ok(),
        _ => None,
    }
}

impl Locale {
    /// A calendar date in the language's long form ("January 2, 2025", "2. Januar 2025"), in
    /// `zone`, with its machine-readable form for `<time datetime>` (`2025-01-02`).
    pub fn date(self, at: Timestamp, zone: &TimeZone) -> (String, String) {
        let day = at.to_zoned(zone.clone()).date();
        (self.day(day), day.to_string())
    }

    /// A calendar day in the language's long form ("January 2, 2025", "2. Januar 2025").
    pub fn day(self, day: jiff::civil::Date) -> String {
        iso(day)
            .map(|date| forms(self).date.format(&date).to_string())
            .unwrap_or_else(|| day.to_string())
    }

    /// The month of `day`, short (CLDR's medium form: "Mar 2025", "03/2025").
    pub fn month(self, day: jiff::civil::Date) -> String {
        iso(day)
            .map(|date| forms(self).month.format(&date).to_string())
            .unwrap_or_else(|| day.strftime("%Y-%m").to_string())
    }

    /// A moment to the minute in the language's medium form, in UTC, saying so
    /// ("Jan 2, 2025, 2:30 PM UTC", "02.01.2025, 14:30 UTC").
    pub fn date_time(self, at: Timestamp) -> String {
        let t = at.to_zoned(TimeZone::UTC).datetime();
        let time = Time::try_new(t.hour() as u8, t.minute() as u8, 0, 0);
        match (iso(t.date()), time) {
            (Some(date), Ok(time)) => {
                let moment: DateTime<Iso> = DateTime { date, time };
                format!("{} UTC", forms(self).date_time.format(&moment))
            }
            _ => at.strftime("%Y-%m-%d %H:%M UTC").to_string(),
        }
    }

    /// A whole number in the language's forms ("1,234", "1.234").
    pub fn number(self, n: u64) -> String {
        forms(self).numbers.format_to_string(&Decimal::from(n))
    }

    /// A number with at most one decimal place ("12.5", "12,5").
    pub fn fraction(self, n: f64) -> String {
        decimal(&forms(self).numbers, n)
    }

    /// A file's size in 1024-based units, one decimal place at most ("12.5 MB", "12,5 MB").
    pub fn size(self, bytes: u64) -> String {
        let (value, unit) = crate::model::in_units(bytes);
        format!("{} {unit}", self.fraction(value))
    }

    /// A country's name from its ISO 3166 code ("DE": "Germany", "Deutschland"); `None` for a
    /// code CLDR does not name.
    pub fn country(self, code: &str) -> Option<String> {
        let region = Region::try_from_str(code).ok()?;
        forms(self).regions.of(region).map(str::to_string)
    }

    /// How long something lasts, as a listener needs it ("1 h 5 min", "42 min", "45 s"), and its
    /// ISO 8601 form (`PT1H5M3S`).
    pub fn duration(self, ms: u64) -> (String, String) {
        let seconds = ms / 1000;
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
        let text = match (h, m) {
            (0, 0) => self.text_with("duration-seconds", &[("s", s.into())]),
            (0, m) => self.text_with(
                "duration-minutes",
                &[("m", (m + u64::from(s >= 30)).into())],
            ),
            (h, m) => self.text_with("duration-hours", &[("h", h.into()), ("m", m.into())]),
        };
        (text, format!("PT{h}H{m}M{s}S"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de() -> Locale {
        Locale::parse("de").unwrap()
    }

    #[test]
    fn dates_read_in_the_language_and_the_display_time_zone() {
        let at: Timestamp = "2025-01-01T23:30:00Z".parse().unwrap();
        assert_eq!(
            Locale::ENGLISH.date(at, &TimeZone::UTC),
            ("January 1, 2025".into(), "2025-01-01".into())
        );
        let berlin = TimeZone::get("Europe/Berlin").unwrap();
        assert_eq!(
            de().date(at, &berlin),
            ("2. Januar 2025".into(), "2025-01-02".into())
        );
        assert_eq!(de().date_time(at), "01.01.2025, 23:30 UTC");
        let day = jiff::civil::date(2025, 3, 1);
        assert_eq!(Locale::ENGLISH.month(day), "Mar 2025");
        assert_eq!(de().month(day), "03/2025");
    }

    #[test]
    fn numbers_and_countries_in_the_language() {
        assert_eq!(Locale::ENGLISH.number(1_234_567), "1,234,567");
        assert_eq!(de().number(1_234_567), "1.234.567");
        assert_eq!(de().fraction(12.46), "12,5");
        assert_eq!(Locale::ENGLISH.fraction(12.0), "12");
        assert_eq!(Locale::ENGLISH.country("DE").as_deref(), Some("Germany"));
        assert_eq!(de().country("US").as_deref(), Some("Vereinigte Staaten"));
        assert_eq!(de().country("ZZZ"), None);
    }

    #[test]
    fn durations_round_to_what_a_listener_needs() {
        let en = Locale::ENGLISH;
        assert_eq!(en.duration(45_400), ("45 s".into(), "PT0H0M45S".into()));
        assert_eq!(en.duration(150_000).0, "3 min");
        assert_eq!(en.duration(149_000).0, "2 min");
        assert_eq!(
            en.duration(3_903_000),
            ("1 h 5 min".into(), "PT1H5M3S".into())
        );
        assert_eq!(de().duration(3_903_000).0, "1 Std. 5 Min.");
    }
}
