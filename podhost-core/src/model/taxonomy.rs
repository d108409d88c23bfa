//! The Podcast Taxonomy Project's roles and groups, which `podcast:person` names (its `role` and
//! `group` attributes, case-insensitive): the namespace's `taxonomy.json`, names only.

/// Each group with its roles, lower-cased as compared.
pub const ROLES: [(&str, &[&str]); 11] = [
    (
        "creative direction",
        &[
            "director",
            "assistant director",
            "executive producer",
            "senior producer",
            "producer",
            "associate producer",
            "development producer",
            "creative director",
        ],
    ),
    (
        "cast",
        &[
            "host",
            "co-host",
            "guest host",
            "guest",
            "voice actor",
            "narrator",
            "announcer",
            "reporter",
        ],
    ),
    (
        "writing",
        &[
            "author",
            "editorial director",
            "co-writer",
            "writer",
            "songwriter",
            "guest writer",
            "story editor",
            "managing editor",
            "script editor",
            "script coordinator",
            "researcher",
            "editor",
            "fact checker",
            // The list spells it "Translater"; podcasttaxonomy.com says "Translator".
            "translator",
            "translater",
            "transcriber",
            "logger",
        ],
    ),
    (
        "audio production",
        &[
            "studio coordinator",
            "technical director",
            "technical manager",
            "audio engineer",
            "remote recording engineer",
            "post production engineer",
        ],
    ),
    (
        "audio post-production",
        &[
            "audio editor",
            "sound designer",
            "foley artist",
            "composer",
            "theme music",
            "music production",
            "music contributor",
        ],
    ),
    (
        "administration",
        &[
            "production coordinator",
            "booking coordinator",
            "production assistant",
            "content manager",
            "marketing manager",
            "sales representative",
            "sales manager",
        ],
    ),
    ("visuals", &["graphic designer", "cover art designer"]),
    ("community", &["social media manager"]),
    ("misc.", &["consultant", "intern"]),
    (
        "video production",
        &[
            "camera operator",
            "lighting designer",
            "camera grip",
            "assistant camera",
        ],
    ),
    ("video post-production", &["editor", "assistant editor"]),
];

/// Whether `role` (and `group`, when given) are the taxonomy's, case-insensitively; the role
/// must be one of the group's. A missing role means `host`, a missing group any group that
/// has the role. `Err` says what is wrong.
pub fn check_role(role: Option<&str>, group: Option<&str>) -> Result<(), String> {
    let role = role.map(|r| r.trim().to_lowercase());
    let group = group.map(|g| g.trim().to_lowercase());
    if let Some(g) = &group
        && !ROLES.iter().any(|(name, _)| name == g)
    {
        return Err(format!(
            "group \"{g}\" is not one of the Podcast Taxonomy's: {}",
            groups().join(", ")
        ));
    }
    let Some(role) = role else { return Ok(()) };
    let in_group = |(name, roles): &&(&str, &[&str])| {
        group.as_ref().is_none_or(|g| name == g) && roles.contains(&role.as_str())
    };
    if ROLES.iter().any(|entry| in_group(&entry)) {
        return Ok(());
    }
    match group {
        Some(g)
            if ROLES
                .iter()
                .any(|(_, roles)| roles.contains(&role.as_str())) =>
        {
            Err(format!(
                "role \"{role}\" is not of group \"{g}\" in the Podcast Taxonomy"
            ))
        }
        _ => Err(format!(
            "role \"{role}\" is not one of the Podcast Taxonomy's (podcasttaxonomy.com)"
        )),
    }
}

fn groups() -> Vec<&'static str> {
    ROLES.iter().map(|(g, _)| *g).collect()
}

#[cfg(test)]
mod tests {
    use super::check_role;

    #[test]
    fn roles_are_checked_against_the_taxonomy() {
        // (role, group, accepted)
        let cases = [
            (None, None, true),
            (Some("host"), None, true),
            (Some("Host"), Some("Cast"), true),
            (Some("Cover Art Designer"), Some("visuals"), true),
            (Some("producer"), Some("creative direction"), true),
            (Some("producer"), None, true),
            (Some("editor"), Some("video post-production"), true),
            (Some(" guest "), None, true),
            (Some("translator"), Some("writing"), true),
            (None, Some("writing"), true),
            (Some("producer"), Some("cast"), false),
            (Some("chief vibes officer"), None, false),
            (Some("host"), Some("band"), false),
        ];
        for (role, group, accepted) in cases {
            assert_eq!(
                check_role(role, group).is_ok(),
                accepted,
                "{role:?} {group:?}: {:?}",
                check_role(role, group)
            );
        }
        let message = check_role(Some("producer"), Some("cast")).unwrap_err();
        assert!(message.contains("not of group"), "{message}");
    }
}
