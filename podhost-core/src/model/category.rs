//! Apple Podcasts categories: the one list podhost knows, and the check of a feed's
//! `itunes:category` and its subcategory against it.
//!
//! Apple Podcasts lists a show under the category (and optional subcategory) of its feed, and
//! refuses a feed whose category is not one of its own, spelled exactly (case and `&`
//! included). The list is Apple's of 2019 (the one that added Fiction, History and True Crime),
//! as published in "Apple Podcasts categories" (<https://podcasters.apple.com/support/1691>).

use crate::error::FieldErrors;

/// One Apple Podcasts category and its subcategories, spelled exactly as Apple spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppleCategory {
    /// The category, e.g. `Society & Culture`.
    pub name: &'static str,
    /// Its subcategories, e.g. `Documentary`; empty for the categories that have none.
    pub subcategories: &'static [&'static str],
}

impl AppleCategory {
    /// Whether `subcategory` is one of this category's subcategories (case exact).
    pub fn has_subcategory(&self, subcategory: &str) -> bool {
        self.subcategories.contains(&subcategory)
    }
}

const fn category(name: &'static str, subcategories: &'static [&'static str]) -> AppleCategory {
    AppleCategory {
        name,
        subcategories,
    }
}

/// Apple's 19 podcast categories with their subcategories, both in alphabetical order.
pub const APPLE_CATEGORIES: [AppleCategory; 19] = [
    category(
        "Arts",
        &[
            "Books",
            "Design",
            "Fashion & Beauty",
            "Food",
            "Performing Arts",
            "Visual Arts",
        ],
    ),
    category(
        "Business",
        &[
            "Careers",
            "Entrepreneurship",
            "Investing",
            "Management",
            "Marketing",
            "Non-Profit",
        ],
    ),
    category("Comedy", &["Comedy Interviews", "Improv", "Stand-Up"]),
    category(
        "Education",
        &["Courses", "How To", "Language Learning", "Self-Improvement"],
    ),
    category("Fiction", &["Comedy Fiction", "Drama", "Science Fiction"]),
    category("Government", &[]),
    category(
        "Health & Fitness",
        &[
            "Alternative Health",
            "Fitness",
            "Medicine",
            "Mental Health",
            "Nutrition",
            "Sexuality",
        ],
    ),
    category("History", &[]),
    category(
        "Kids & Family",
        &[
            "Education for Kids",
            "Parenting",
            "Pets & Animals",
            "Stories for Kids",
        ],
    ),
    category(
        "Leisure",
        &[
            "Animation & Manga",
            "Automotive",
            "Aviation",
            "Crafts",
            "Games",
            "Hobbies",
            "Home & Garden",
            "Video Games",
        ],
    ),
    category(
        "Music",
        &["Music Commentary", "Music History", "Music Interviews"],
    ),
    category(
        "News",
        &[
            "Business News",
            "Daily News",
            "Entertainment News",
            "News Commentary",
            "Politics",
            "Sports News",
            "Tech News",
        ],
    ),
    category(
        "Religion & Spirituality",
        &[
            "Buddhism",
            "Christianity",
            "Hinduism",
            "Islam",
            "Judaism",
            "Religion",
            "Spirituality",
        ],
    ),
    category(
        "Science",
        &[
            "Astronomy",
            "Chemistry",
            "Earth Sciences",
            "Life Sciences",
            "Mathematics",
            "Natural Sciences",
            "Nature",
            "Physics",
            "Social Sciences",
        ],
    ),
    category(
        "Society & Culture",
        &[
            "Documentary",
            "Personal Journals",
            "Philosophy",
            "Places & Travel",
            "Relationships",
        ],
    ),
    category(
        "Sports",
        &[
            "Baseball",
            "Basketball",
            "Cricket",
            "Fantasy Sports",
            "Football",
            "Golf",
            "Hockey",
            "Rugby",
            "Running",
            "Soccer",
            "Swimming",
            "Tennis",
            "Volleyball",
            "Wilderness",
            "Wrestling",
        ],
    ),
    category("Technology", &[]),
    category("True Crime", &[]),
    category(
        "TV & Film",
        &[
            "After Shows",
            "Film History",
            "Film Interviews",
            "Film Reviews",
            "TV Reviews",
        ],
    ),
];

/// The Apple category named exactly `name` (case and `&` included), if there is one.
pub fn apple_category(name: &str) -> Option<&'static AppleCategory> {
    APPLE_CATEGORIES.iter().find(|c| c.name == name)
}

/// How a feed's category was read as one of Apple's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Spelled as Apple spells it (a subcategory that is not Apple's is left out).
    Exact,
    /// Apple's, spelled with another case (`technology`).
    Case,
    /// A name Apple retired in its 2019 list change (`News & Politics`), mapped to its successor.
    Retired,
    /// A subcategory of Apple's named as a category (`Politics`).
    Subcategory,
    /// Not Apple's and nothing like it: the general category, so that the podcast has one.
    Fallback,
}

/// A feed's category as one of Apple's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedCategory {
    /// Apple's category.
    pub category: &'static str,
    /// Its subcategory; empty for none.
    pub subcategory: &'static str,
    /// How it was found.
    pub reading: Reading,
}

/// The category of last resort: a podcast always has one when its source named one.
const FALLBACK: &str = "Society & Culture";

/// Apple's categories before its 2019 change, and what each became: `(old category, old
/// subcategory, new category, new subcategory)`; an empty old subcategory is the category
/// alone. A name that did not change (`Comedy`, `Arts` › `Design`) is not listed.
const RETIRED: &[(&str, &str, &str, &str)] = &[
    ("Arts", "Literature", "Arts", "Books"),
    ("Business", "Business News", "News", "Business News"),
    (
        "Business",
        "Management & Marketing",
        "Business",
        "Management",
    ),
    ("Business", "Shopping", "Business", ""),
    ("Education", "Educational Technology", "Education", ""),
    ("Education", "Higher Education", "Education", ""),
    ("Education", "K-12", "Education", ""),
    (
        "Education",
        "Language Courses",
        "Education",
        "Language Learning",
    ),
    ("Education", "Training", "Education", "Courses"),
    ("Games & Hobbies", "", "Leisure", ""),
    ("Games & Hobbies", "Other Games", "Leisure", "Games"),
    ("Government & Organizations", "", "Government", ""),
    (
        "Government & Organizations",
        "Non-Profit",
        "Business",
        "Non-Profit",
    ),
    ("Health", "", "Health & Fitness", ""),
    (
        "Health",
        "Fitness & Nutrition",
        "Health & Fitness",
        "Fitness",
    ),
    ("Health", "Self-Help", "Education", "Self-Improvement"),
    ("News & Politics", "", "News", "Politics"),
    (
        "Religion & Spirituality",
        "Other",
        "Religion & Spirituality",
        "Religion",
    ),
    ("Science & Medicine", "", "Science", ""),
    (
        "Science & Medicine",
        "Medicine",
        "Health & Fitness",
        "Medicine",
    ),
    ("Society & Culture", "History", "History", ""),
    ("Sports & Recreation", "", "Sports", ""),
    ("Sports & Recreation", "Outdoor", "Sports", "Wilderness"),
    ("Technology", "Tech News", "News", "Tech News"),
];

/// Reads what a feed names (`category`, with `subcategory` or empty) as one of Apple's
/// categories, the way a podcast moving in needs it: exactly, then ignoring case, then through
/// the names Apple retired in 2019, then as a subcategory named as a category, and at last the
/// general category. `None` only when `category` is empty. A subcategory that is not Apple's
/// under the category found is left out.
pub fn resolve_category(category: &str, subcategory: &str) -> Option<ResolvedCategory> {
    let (category, subcategory) = (category.trim(), subcategory.trim());
    if category.is_empty() {
        return None;
    }
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    let within = |found: &'static AppleCategory, sub: &str| -> &'static str {
        found
            .subcategories
            .iter()
            .find(|s| same(s, sub))
            .copied()
            .unwrap_or("")
    };
    let resolved =
        |found: &'static AppleCategory, subcategory: &'static str, reading| ResolvedCategory {
            category: found.name,
            subcategory,
            reading,
        };
    if let Some(found) = APPLE_CATEGORIES.iter().find(|c| same(c.name, category)) {
        if let Some(&(_, _, new, new_sub)) = RETIRED
            .iter()
            .find(|r| same(r.0, category) && !r.1.is_empty() && same(r.1, subcategory))
        {
            let found = apple_category(new)?;
            return Some(resolved(found, within(found, new_sub), Reading::Retired));
        }
        let reading = if found.name == category {
            Reading::Exact
        } else {
            Reading::Case
        };
        return Some(resolved(found, within(found, subcategory), reading));
    }
    let retired = RETIRED
        .iter()
        .find(|r| same(r.0, category) && !subcategory.is_empty() && same(r.1, subcategory))
        .or_else(|| {
            RETIRED
                .iter()
                .find(|r| same(r.0, category) && r.1.is_empty())
        });
    if let Some(&(_, old_sub, new, new_sub)) = retired {
        let found = apple_category(new)?;
        let sub = match within(found, subcategory) {
            "" => within(found, new_sub),
            kept if old_sub.is_empty() => kept,
            _ => within(found, new_sub),
        };
        return Some(resolved(found, sub, Reading::Retired));
    }
    for name in [category, subcategory] {
        if let Some((found, sub)) = APPLE_CATEGORIES.iter().find_map(|c| {
            c.subcategories
                .iter()
                .find(|s| !name.is_empty() && same(s, name))
                .map(|s| (c, *s))
        }) {
            return Some(resolved(found, sub, Reading::Subcategory));
        }
    }
    let found = apple_category(FALLBACK)?;
    Some(resolved(found, "", Reading::Fallback))
}

/// `"a", "b" and "c"`, for messages.
fn quoted_list(names: impl Iterator<Item = &'static str>) -> String {
    let names: Vec<String> = names.map(|n| format!("\"{n}\"")).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Checks a feed's category and subcategory (either may be empty: no category). Problems are
/// reported under `itunes.category` and `itunes.subcategory`: a category that is not Apple's
/// (with the right spelling when only the case is wrong), a subcategory without a category, a
/// subcategory that is not one of its category's.
pub(crate) fn check_apple_category(errors: &mut FieldErrors, category: &str, subcategory: &str) {
    const CATEGORY: &str = "itunes.category";
    const SUBCATEGORY: &str = "itunes.subcategory";
    if category.is_empty() {
        if !subcategory.is_empty() {
            errors.add(SUBCATEGORY, "a subcategory needs a category");
        }
        return;
    }
    let Some(found) = apple_category(category) else {
        let message = match APPLE_CATEGORIES
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(category))
        {
            Some(c) => format!(
                "\"{category}\" is not an Apple Podcasts category; categories are case-exact: \"{}\"",
                c.name
            ),
            None => format!(
                "\"{category}\" is not an Apple Podcasts category; one of {}",
                quoted_list(APPLE_CATEGORIES.iter().map(|c| c.name))
            ),
        };
        errors.add(CATEGORY, message);
        return;
    };
    if subcategory.is_empty() || found.has_subcategory(subcategory) {
        return;
    }
    let same_but_case = found
        .subcategories
        .iter()
        .find(|s| s.eq_ignore_ascii_case(subcategory));
    let message = match same_but_case {
        Some(s) => format!("subcategories are case-exact: \"{s}\""),
        None if found.subcategories.is_empty() => {
            format!("\"{}\" has no subcategories", found.name)
        }
        None => format!(
            "\"{subcategory}\" is not a subcategory of \"{}\"; one of {}",
            found.name,
            quoted_list(found.subcategories.iter().copied())
        ),
    };
    errors.add(SUBCATEGORY, message);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_retired_name_leads_to_one_of_apples() {
        for (old, old_sub, new, new_sub) in RETIRED {
            let found = apple_category(new).unwrap_or_else(|| panic!("{old}: {new}"));
            assert!(
                new_sub.is_empty() || found.has_subcategory(new_sub),
                "{old} › {old_sub}: {new} › {new_sub}"
            );
        }
    }

    #[test]
    fn a_named_category_always_resolves_to_one_of_apples() {
        use Reading::*;
        let cases = [
            ("Technology", "", "Technology", "", Exact),
            (
                "Society & Culture",
                "Documentary",
                "Society & Culture",
                "Documentary",
                Exact,
            ),
            (
                "society & culture",
                "documentary",
                "Society & Culture",
                "Documentary",
                Case,
            ),
            ("Arts", "Knitting", "Arts", "", Exact),
            ("News & Politics", "", "News", "Politics", Retired),
            ("news & politics", "", "News", "Politics", Retired),
            (
                "Games & Hobbies",
                "Video Games",
                "Leisure",
                "Video Games",
                Retired,
            ),
            (
                "Games & Hobbies",
                "Other Games",
                "Leisure",
                "Games",
                Retired,
            ),
            (
                "Health",
                "Self-Help",
                "Education",
                "Self-Improvement",
                Retired,
            ),
            (
                "Science & Medicine",
                "Natural Sciences",
                "Science",
                "Natural Sciences",
                Retired,
            ),
            (
                "Science & Medicine",
                "Medicine",
                "Health & Fitness",
                "Medicine",
                Retired,
            ),
            ("Technology", "Tech News", "News", "Tech News", Retired),
            ("Technology", "Podcasting", "Technology", "", Exact),
            ("Society & Culture", "History", "History", "", Retired),
            (
                "Sports & Recreation",
                "Outdoor",
                "Sports",
                "Wilderness",
                Retired,
            ),
            (
                "Government & Organizations",
                "Non-Profit",
                "Business",
                "Non-Profit",
                Retired,
            ),
            ("Politics", "", "News", "Politics", Subcategory),
            (
                "Podcasts",
                "Video Games",
                "Leisure",
                "Video Games",
                Subcategory,
            ),
            ("Stuff", "", "Society & Culture", "", Fallback),
        ];
        for (category, subcategory, want, want_sub, reading) in cases {
            let got = resolve_category(category, subcategory)
                .unwrap_or_else(|| panic!("{category} › {subcategory}"));
            assert_eq!(
                (got.category, got.subcategory, got.reading),
                (want, want_sub, reading),
                "{category} › {subcategory}"
            );
            let mut errors = FieldErrors::default();
            check_apple_category(&mut errors, got.category, got.subcategory);
            assert!(errors.is_empty(), "{category}: {errors}");
        }
        assert_eq!(resolve_category(" ", "Politics"), None);
    }

    #[test]
    fn the_list_has_apples_19_categories_each_spelled_once() {
        assert_eq!(APPLE_CATEGORIES.len(), 19);
        let names: Vec<String> = APPLE_CATEGORIES
            .iter()
            .map(|c| c.name.to_lowercase())
            .collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted, "alphabetical, each once");
        for c in &APPLE_CATEGORIES {
            let mut subs = c.subcategories.to_vec();
            subs.sort_unstable();
            assert_eq!(
                subs, c.subcategories,
                "{} in Apple's (alphabetical) order",
                c.name
            );
            subs.dedup();
            assert_eq!(
                subs.len(),
                c.subcategories.len(),
                "{} has no duplicates",
                c.name
            );
        }
        let subcategories: usize = APPLE_CATEGORIES.iter().map(|c| c.subcategories.len()).sum();
        assert_eq!(subcategories, 91);
    }

    /// (category, subcategory, the field with a problem or `None`, a piece of its message).
    const CASES: &[(&str, &str, Option<&str>, &str)] = &[
        ("", "", None, ""),
        ("Technology", "", None, ""),
        ("Society & Culture", "Documentary", None, ""),
        ("Arts", "Books", None, ""),
        ("Health & Fitness", "Sexuality", None, ""),
        ("Education", "How To", None, ""),
        ("TV & Film", "After Shows", None, ""),
        ("True Crime", "", None, ""),
        (
            "technology",
            "",
            Some("itunes.category"),
            "case-exact: \"Technology\"",
        ),
        (
            "SOCIETY & CULTURE",
            "",
            Some("itunes.category"),
            "\"Society & Culture\"",
        ),
        (
            "Society and Culture",
            "",
            Some("itunes.category"),
            "one of \"Arts\"",
        ),
        (
            "Tech",
            "Tech News",
            Some("itunes.category"),
            "not an Apple Podcasts category",
        ),
        (
            " Technology",
            "",
            Some("itunes.category"),
            "not an Apple Podcasts category",
        ),
        (
            "Games & Hobbies",
            "",
            Some("itunes.category"),
            "not an Apple Podcasts category",
        ),
        ("", "Books", Some("itunes.subcategory"), "needs a category"),
        (
            "Arts",
            "books",
            Some("itunes.subcategory"),
            "case-exact: \"Books\"",
        ),
        (
            "Technology",
            "Software How-To",
            Some("itunes.subcategory"),
            "has no subcategories",
        ),
        (
            "Technology",
            "Tech News",
            Some("itunes.subcategory"),
            "has no subcategories",
        ),
        (
            "News",
            "Books",
            Some("itunes.subcategory"),
            "not a subcategory of \"News\"",
        ),
        (
            "Education",
            "How-To",
            Some("itunes.subcategory"),
            "\"How To\"",
        ),
        (
            "Arts",
            "Arts",
            Some("itunes.subcategory"),
            "one of \"Books\"",
        ),
    ];

    #[test]
    fn category_pairs() {
        for &(category, subcategory, field, message) in CASES {
            let mut errors = FieldErrors::default();
            check_apple_category(&mut errors, category, subcategory);
            let fields = errors.fields();
            let got: Vec<&String> = fields.keys().collect();
            let case = format!("{category:?} > {subcategory:?}: {fields:?}");
            match field {
                None => assert!(got.is_empty(), "{case}"),
                Some(field) => {
                    assert_eq!(got, [field], "{case}");
                    assert!(fields[field].iter().any(|m| m.contains(message)), "{case}");
                }
            }
        }
    }

    #[test]
    fn every_listed_pair_is_valid() {
        for c in &APPLE_CATEGORIES {
            for sub in [""].iter().chain(c.subcategories) {
                let mut errors = FieldErrors::default();
                check_apple_category(&mut errors, c.name, sub);
                assert!(errors.fields().is_empty(), "{} > {sub}", c.name);
            }
        }
    }
}
