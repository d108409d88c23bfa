//! Whether a refusal's text reads as a sentence: no debug form of a type, no template hole, no
//! plural after one, no leaked schema text or source path.
//!
//! The rules are `refusal_rules.txt`, one source read by these tests and by the fuzz run of
//! `scripts/api-clients` (schemathesis's check). [`crate::contract::check`] applies them to every
//! error answer every test fixture sees, so each refusal any test drives is held to them.

use std::sync::LazyLock;

use regex::Regex;

/// The rules: what each finds, and its expression.
static RULES: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    include_str!("refusal_rules.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (name, pattern) = line
                .split_once('\t')
                .expect("a rule is a name, a tab and an expression");
            let regex = Regex::new(pattern).expect("a rule's expression compiles");
            (name, regex)
        })
        .collect()
});

/// What is wrong with `text` as a refusal a person reads: each broken rule with the part that
/// broke it; empty when it reads well. An empty text is wrong too.
pub fn problems(text: &str) -> Vec<String> {
    if text.trim().is_empty() {
        return vec!["an empty message".into()];
    }
    RULES
        .iter()
        .filter_map(|(name, regex)| {
            regex
                .find(text)
                .map(|m| format!("{name}: {:?}", m.as_str()))
        })
        .collect()
}

/// The texts a JSON error answer shows a person: its `message` (OAuth's `error_description`),
/// and each message per field (`errors`, as `field: message`).
pub fn texts(answer: &serde_json::Value) -> Vec<String> {
    let mut texts = Vec::new();
    // The API's `message`, and OAuth's `error_description` (RFC 6749).
    for key in ["message", "error_description"] {
        if let Some(message) = answer.get(key).and_then(|m| m.as_str()) {
            texts.push(message.to_string());
        }
    }
    if let Some(errors) = answer.get("errors").and_then(|e| e.as_object()) {
        for (field, messages) in errors {
            for message in messages.as_array().into_iter().flatten() {
                texts.push(format!("{field}: {}", message.as_str().unwrap_or_default()));
            }
        }
    }
    texts
}

/// [`problems`] of each of `answer`'s [`texts`], as one report; `Ok` when they all read well.
pub fn check_answer(answer: &serde_json::Value) -> Result<(), String> {
    let found: Vec<String> = texts(answer)
        .into_iter()
        .flat_map(|text| {
            problems(&text)
                .into_iter()
                .map(move |p| format!("{p} in {text:?}"))
        })
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(found.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_find_what_the_first_hour_found_and_pass_sentences() {
        for bad in [
            "the feed id FeedId(\"hello\") is taken",
            "id: not of the form Its id: unique in the deployment, 1 to 100 characters, no /.",
            "title: at least 1 characters",
            "the slot Break { at: 3 } is taken",
            "missing {field}",
            "pattern ^[^/\\s\\u0000-\\u001f]$",
            "failed at podhost_core::ids::FeedId",
            "feeds: \"\\u{93}x\" is not a podcast id",
            "thread panicked at src/lib.rs:3",
            "",
        ] {
            assert!(!problems(bad).is_empty(), "{bad:?} passed");
        }
        for good in [
            "the podcast id \"hello\" is taken: choose another",
            "title: must not be empty",
            "a feed id has 1 to 100 characters",
            "too many failed attempts; try again in 1 second",
            "an MP3 bitrate in kbit/s: one of 32, 40, 48",
            "episode pod-12 not found",
            "at most 11 characters",
        ] {
            assert!(problems(good).is_empty(), "{good:?}: {:?}", problems(good));
        }
    }
}
