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

/// `"a", "b" and "c"`, for messages.
fn quoted_list(names: impl Iterator<Item = &'static str>) -> String {
    let names: Vec<String> = names.map(|n| format!("{n:?}")).collect();
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
                "{category:?} is not an Apple Podcasts category; categories are case-exact: {:?}",
                c.name
            ),
            None => format!(
                "{category:?} is not an Apple Podcasts category; one of {}",
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
        Some(s) => format!("subcategories are case-exact: {s:?}"),
        None if found.subcategories.is_empty() => {
            format!("{:?} has no subcategories", found.name)
        }
        None => format!(
            "{subcategory:?} is not a subcategory of {:?}; one of {}",
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
