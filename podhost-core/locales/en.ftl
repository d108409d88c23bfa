# podhost's words in English: the language every other falls back to. A message's id is the
# same in every file; `cargo test -p podhost-core locale` fails when a file lacks one.

language-name = English

## Forms

duration-seconds = { $s } s
duration-minutes = { $m } min
duration-hours = { $h } h { $m } min
episode-count = { $count ->
    [one] { $count } episode
   *[other] { $count } episodes
}

## Every page

skip-to-content = Skip to content
rss-feed = RSS feed
hosted-with-podhost = Hosted with podhost
languages = Languages

## The podcast page

podcast = Podcast
cover-of = Cover art of { $title }
about-this-podcast = About this podcast
explicit = Explicit
complete-series = Complete series
moved-heading = This podcast has moved
moved-text = New episodes are published in its new feed:
about = About
website = Website
support-the-show = Support the show
episodes = Episodes
no-episodes-yet = No episodes have been published yet.
pages-of-episodes = Pages of episodes
page-of = Page { $page } of { $pages }
previous-page = Previous page
next-page = Next page
download-statistics = Download statistics
subscribe = Subscribe
subscribe-feed-label = Or paste this feed address into your podcast app
embed-heading = Embed the player
embed-code-label = Copy this code into your website
season-number = Season { $season }
episode-number = Episode { $episode }
episode-type-trailer = Trailer
episode-type-bonus = Bonus

## The episode page

episode = Episode
watch = Watch
watch-title = Watch { $title }
listen = Listen
listen-title = Listen to { $title }
download = Download
transcript = Transcript
captions = Captions
episode-website = Episode website
show-notes = Show notes
chapters = Chapters
soundbites = Soundbites
people = People
comments = Comments
comments-how = Follow { $handle } on Mastodon or another fediverse app and reply to this episode's post: your reply appears here.
comments-none = No comments yet.
comment-by = { $name } ({ $handle })
comment-on-instance = on their instance
transcripts = Transcripts
follow = Follow
follow-text = Get every new episode in your podcast app, or
see-all-episodes = see all episodes.
cannot-play = Your browser cannot play this file here:
download-it = download it.

## The player

player-of = Player: { $title }
download-the-episode = Download the episode
play = Play
pause = Pause
playback-speed = Playback speed
seek = Seek
read-the-transcript = Read the transcript

## Statistics and charts

statistics = Statistics
downloads-per-month = Downloads per month
apps = Apps
chart-axis-month = Month
chart-axis-app = App
chart-unit-downloads = downloads
stats-period = { $count ->
    [one] { $count } download from { $from } to { $to } (UTC)
   *[other] { $count } downloads from { $from } to { $to } (UTC)
}
stats-downloads-of = Downloads of the episodes of
stats-counted-how = , counted by the IAB Podcast Measurement guidelines (v2.3): a listener's repeated requests count once, bots not at all. Published by the podcaster; no data about listeners is shown.
chart-line-description = { $title }: a line chart of { $total } { $unit } over { $count ->
    [one] { $count } point
   *[other] { $count } points
}; the table beside it has the numbers.
chart-bar-description = { $title }: a bar chart of { $total } { $unit } in { $count ->
    [one] { $count } category
   *[other] { $count } categories
}; the table beside it has the numbers.
chart-column-description = { $title }: a column chart of { $total } { $unit } in { $count ->
    [one] { $count } category
   *[other] { $count } categories
}; the table beside it has the numbers.
chart-drawn = (the { $drawn } largest drawn; all { $count } in the table)
chart-drawn-and-tabled = (the { $drawn } largest drawn, the { $tabled } largest in the table, of { $count })
chart-nothing-counted = Nothing counted in this period
chart-numbers = { $title }: the numbers

## Notices

notice-not-found = Not found
notice-not-found-text = There is no podcast or episode at this address. It may not be published yet.
notice-gone = This podcast was deleted
notice-gone-text = Its episodes and its feed are no longer available here.
notice-bad-page-number = No such page
notice-bad-page-number-text = A page of episodes is asked for by its number: a whole number from 1.

## Signed-in site

site-nav-label = Site
site-nav-account = Account
site-statistics = Statistics
site-signed-in-as = Signed in as { $name }
site-signed-in-as-member = Signed in as { $name } in the account { $account }
site-sign-out = Sign out
site-back = Back
site-back-to-account = Back to your account
site-back-to-sign-in = Back to the sign-in form
site-back-to-invitation = Back to the invitation
site-home-intro = This server hosts podcasts: their RSS feeds, their episodes' audio and their web pages.
site-home-podcasters = For podcasters
site-home-sign-in-link = Sign in to your account
site-home-sign-in = { $link } to create personal API tokens and OAuth clients, and to see what you allowed applications to do.
site-home-reference-link = its reference
site-home-api = The REST API: { $reference }, and its OpenAPI document for tools: { $openapi }.
site-home-podcasts = Podcasts on this server
site-home-none = None yet.
site-home-more = And more.
site-sign-in = Sign in
site-sign-in-login = Login (your name or e-mail address)
site-password = Password
site-sign-in-passwords = An administrator sets passwords with { $command }.
site-sign-in-wrong = The login or the password is wrong.
site-signed-out = You are not signed in (or your session has ended). Sign in, then try again.
site-too-many-title = Too many attempts
site-too-many-text = Signing in failed too often. Try again in { $seconds ->
    [one] { $seconds } second
   *[other] { $seconds } seconds
}.
site-not-found-title = Not found
site-not-found-text = There is nothing here (or it is not yours).
site-form-unreadable-title = The form could not be read
site-form-unreadable-text = A form is sent as application/x-www-form-urlencoded, of at most 64 KB.
site-form-refused-title = The form was refused
site-form-refused-text = It was not sent from this site's own page, or that page is too old. Go back, reload the page and try again.
site-failure-title = Something went wrong
site-failure-text = The server could not do this now; try again in a moment.
site-role-owner = owner
site-role-admin = admin
site-role-editor = editor
site-role-author = author
site-role-analyst = analyst
site-scope-media = upload, change and delete media files
site-scope-media-read-only = see media files
site-scope-feeds = create, change and delete podcasts
site-scope-feeds-read-only = see podcasts
site-scope-shows = create, change, publish and delete episodes
site-scope-shows-read-only = see episodes, drafts included
site-scope-webhooks = manage webhook subscriptions and deliveries
site-scope-stats = see download statistics
site-scope-tokens = manage personal tokens and OAuth clients
site-scope-metrics = read the server's metrics
site-scope-ads = create, change, pause and delete ad campaigns
site-scope-ads-read-only = see ad campaigns and their statistics
site-scope-members = invite members, change their roles and remove them
site-scope-members-read-only = see the account's members and who did what
site-scopes = Scopes
site-account-title = Your account
site-account-heading = Account { $name }
site-account-signed-in = Signed in as { $login }, { $role } of this account.
site-accounts = Your accounts
site-accounts-current = { $account } (this one)
site-switch-to = Switch to { $account }
site-tokens = Personal tokens
site-tokens-help = A personal token is sent as { $header } to the API.
site-tokens-none = No tokens yet.
site-label = Label
site-created = Created
site-last-used = Last used
site-state = State
site-never = never
site-active = active
site-revoked-at = revoked { $at }
site-revoke = Revoke
site-revoke-named = Revoke { $name }
site-new-token = New token
site-token-label-example = e.g. upload script
site-create-token = Create token
site-token-created = Token { $label } created
site-token-shown-once = Copy it now: it is shown only once.
site-token-not-created = The token was not created.
site-clients = OAuth clients
site-clients-help = Applications that ask podcasters for access to their accounts (OAuth 2 with PKCE).
site-clients-none = No clients yet.
site-name = Name
site-client-id = Client id
site-kind = Kind
site-redirect-uris = Redirect URIs
site-kind-public = public
site-kind-confidential = confidential
site-kind-invalid = { $kind }: public or confidential
site-delete = Delete
site-delete-named = Delete { $name }
site-new-client = New client
site-client-name-field = Name (shown to users who are asked to consent)
site-client-uris-field = Redirect URIs, one per line (https, or http on loopback)
site-kind-public-choice = public (an app in a browser or on a device)
site-kind-confidential-choice = confidential (a server that keeps a secret)
site-create-client = Create client
site-client-created = Client { $name } created
site-client-id-shown = Client id: { $id }
site-client-secret-shown = Client secret (shown only once; copy it now):
site-client-not-created = The client was not created.
site-grants = Applications you allowed
site-grants-none = None.
site-application = Application
site-allowed = Allowed
site-consent-title = Allow access?
site-consent-heading = Allow { $client } to use your account?
site-consent-asks = { $client } asks for access to the account { $account } to:
site-consent-back = You will be sent back to { $uri }. You can revoke this at any time on your account page.
site-allow = Allow
site-deny = Deny
site-authorize-invalid = This authorization request is not valid
site-members = Members
site-members-help = People with a role in this account. Owners and admins manage them.
site-login = Login
site-role = Role
site-podcasts = Podcasts
site-status = Status
site-status-invited = invited
site-role-of = Role of { $login }
site-change = Change
site-change-role-of = Change the role of { $login }
site-all-podcasts = all
site-remove = Remove
site-remove-named = Remove { $login }
site-invite-heading = Invite someone
site-invite-login = Login (a name or an e-mail address)
site-invite = Invite
site-invited = Invited { $login }
site-invited-link = Send them this link. It works once, for { $days ->
    [one] { $days } day
   *[other] { $days } days
}, and is not shown again:
site-nobody-invited = Nobody was invited.
site-member-not-changed = The member was not changed.
site-member-not-removed = The member was not removed.
site-join-title = Join an account
site-join-heading = Join { $account }
site-join-text = You are invited to the account { $account } as { $role }, with the login { $login }.
site-join-known-login = You have a podhost login already: sign in with its password to join.
site-sign-in-and-join = Sign in and join
site-your-name = Your name
site-choose-password = Choose a password (at least { $min } characters)
site-password-again = The password again
site-join = Join
site-invitation-broken-title = This invitation does not work
site-invitation-broken-text = It was used already, it expired (invitations hold { $days ->
    [one] { $days } day
   *[other] { $days } days
}), or the link is not whole. Ask for a new one.
site-passwords-differ = The two passwords differ.
site-password-wrong = The password is wrong.
site-stats-sign-in = Sign in to see the statistics.
site-stats-not-shown = The statistics cannot be shown.
site-stats-bad-day = { $field }: must be a day as YYYY-MM-DD
site-stats-period = Period
site-stats-presets = Preset periods
site-stats-last-days = Last { $days ->
    [one] day
   *[other] { $days } days
}
site-stats-last-months = Last { $months ->
    [one] month
   *[other] { $months } months
}
site-stats-from = From
site-stats-to = To
site-stats-show = Show
site-stats-summary = { $total ->
    [one] { $shown } download
   *[other] { $shown } downloads
} from { $from } to { $to } (UTC days), counted by the IAB Podcast Measurement guidelines v2.3.
site-stats-nothing-counted = Nothing was counted in this period. Choose another period above.
site-stats-no-impressions = No impressions yet: the campaign's ads have not been heard.
site-stats-downloads-per-day = Downloads per day
site-stats-day = Day
site-stats-downloads-unit = downloads
site-stats-downloads = Downloads
site-stats-apps = Apps
site-stats-app = App
site-stats-platforms = Platforms
site-stats-platform = Platform
site-stats-countries = Countries
site-stats-country = Country
site-stats-country-unknown = Unknown
site-stats-hours = Hour of day (UTC)
site-stats-hour = Hour
site-stats-podcast = Podcast
site-stats-each-podcast = Each podcast
site-stats-no-podcasts = No podcasts yet.
site-stats-campaigns = Campaigns
site-stats-impressions-count = { $count ->
    [one] { $count } impression
   *[other] { $count } impressions
}
site-stats-median = Median
site-stats-first-days = Episodes' first { $days } days against the median
site-stats-episodes = Episodes
site-stats-episode = Episode
site-stats-curves = Episodes at the same age
site-stats-curves-help = The newest episodes' downloads on each day after publication (day 1: their first 24 hours), against the median of the podcast's episodes of the last year that lived that day. Not bound to the period above.
site-stats-no-recent-episode = No episode was published in the last year.
site-stats-impressions-per-day = Impressions per day
site-stats-impressions-unit = impressions
site-stats-impressions = Impressions
site-stats-campaign-summary = { $count ->
    [one] { $shown } impression
   *[other] { $shown } impressions
} since it was created ({ $created }), counted by the IAB guidelines v2.3: every byte of the ad reached the listener.
site-stats-episode-of = { $episode } ({ $podcast })
site-stats-day-tick = { $month } { $day }
site-month-1 = Jan
site-month-2 = Feb
site-month-3 = Mar
site-month-4 = Apr
site-month-5 = May
site-month-6 = Jun
site-month-7 = Jul
site-month-8 = Aug
site-month-9 = Sep
site-month-10 = Oct
site-month-11 = Nov
site-month-12 = Dec
site-fediverse = Fediverse
site-fediverse-sign-in = Sign in to see your podcasts' followers and comments on the fediverse.
site-fediverse-intro = Your public podcasts can be followed from Mastodon and other fediverse apps, and people reply to their episodes' posts: those replies are the comments. Hide those that should not show on an episode's page, and block accounts or whole instances.
site-fediverse-podcasts = Your podcasts
site-fediverse-no-podcasts = No podcasts yet.
site-fediverse-follower-count = { $count ->
    [one] { $count } follower
   *[other] { $count } followers
}
site-fediverse-off = not on the fediverse (private, or turned off)
site-fediverse-podcast-off = This podcast is not on the fediverse: it is private, or its fediverse profile is turned off. The comments it got before stay here.
site-fediverse-followers = { $count ->
    [0] Nobody follows { $handle } on the fediverse yet.
    [one] One account follows { $handle } on the fediverse.
   *[other] { $shown } accounts follow { $handle } on the fediverse.
}
site-fediverse-comments = Comments
site-fediverse-comments-help = Replies to the episodes' posts on the fediverse, in threads, hidden ones too. A hidden comment stays here but does not show on the episode's page.
site-fediverse-comments-none = No comments yet.
site-fediverse-comment-count = { $count ->
    [one] { $count } comment
   *[other] { $count } comments
}
site-fediverse-hidden = hidden
site-fediverse-blocked = blocked
site-fediverse-hide = Hide
site-fediverse-hide-named = Hide the comment by { $name }
site-fediverse-show = Show
site-fediverse-show-named = Show the comment by { $name }
site-fediverse-block = Block
site-fediverse-block-named = Block { $handle }
site-fediverse-comment-not-changed = The comment was not changed.
site-fediverse-blocks = Blocked accounts and instances
site-fediverse-blocks-help = A block holds for every podcast of this account: the blocked stop following, their comments are hidden, and nothing more of theirs is accepted. Lifting a block leaves their comments hidden until you show them again.
site-fediverse-blocks-none = Nobody is blocked.
site-fediverse-blocked-target = Blocked
site-fediverse-kind = Kind
site-fediverse-kind-actor = account
site-fediverse-kind-instance = instance
site-fediverse-since = Since
site-fediverse-unblock = Unblock
site-fediverse-unblock-named = Unblock { $target }
site-fediverse-new-block = Block an account or an instance
site-fediverse-target = An account's URL (https://example.social/users/name) or an instance's host name (example.social)
site-fediverse-blocks-restricted = Only members who see every podcast of this account may block: a block holds for all of them.
site-fediverse-not-blocked = Nothing was blocked.
site-fediverse-not-unblocked = The block was not lifted.
