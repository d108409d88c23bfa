# podhosts Wörter auf Deutsch. Die Ids der Meldungen sind die aus en.ftl.

language-name = Deutsch

## Formen

duration-seconds = { $s } Sek.
duration-minutes = { $m } Min.
duration-hours = { $h } Std. { $m } Min.
episode-count = { $count ->
    [one] { $count } Folge
   *[other] { $count } Folgen
}

## Jede Seite

skip-to-content = Zum Inhalt springen
rss-feed = RSS-Feed
hosted-with-podhost = Gehostet mit podhost
languages = Sprachen

## Die Podcast-Seite

podcast = Podcast
cover-of = Cover von { $title }
about-this-podcast = Über diesen Podcast
explicit = Explizit
complete-series = Abgeschlossene Reihe
moved-heading = Dieser Podcast ist umgezogen
moved-text = Neue Folgen erscheinen in seinem neuen Feed:
about = Über den Podcast
website = Website
support-the-show = Den Podcast unterstützen
episodes = Folgen
no-episodes-yet = Es wurden noch keine Folgen veröffentlicht.
pages-of-episodes = Seiten der Folgen
page-of = Seite { $page } von { $pages }
previous-page = Vorherige Seite
next-page = Nächste Seite
download-statistics = Download-Statistik
subscribe = Abonnieren
subscribe-feed-label = Oder fügen Sie diese Feed-Adresse in Ihre Podcast-App ein
embed-heading = Player einbetten
embed-code-label = Kopieren Sie diesen Code in Ihre Website
season-number = Staffel { $season }
episode-number = Folge { $episode }
episode-type-trailer = Trailer
episode-type-bonus = Bonus

## Die Seite einer Folge

episode = Folge
watch = Ansehen
watch-title = { $title } ansehen
listen = Anhören
listen-title = { $title } anhören
download = Herunterladen
transcript = Transkript
captions = Untertitel
episode-website = Website der Folge
show-notes = Shownotes
chapters = Kapitel
soundbites = Ausschnitte
people = Mitwirkende
comments = Kommentare
comments-how = Wenn Sie { $handle } mit Mastodon oder einer anderen Fediverse-App folgen, können Sie auf den Beitrag zu dieser Folge antworten: Ihre Antwort erscheint hier.
comments-none = Noch keine Kommentare.
comment-by = { $name } ({ $handle })
comment-on-instance = auf ihrer Instanz
transcripts = Transkripte
follow = Abonnieren Sie
follow-text = Erhalten Sie jede neue Folge in Ihrer Podcast-App, oder
see-all-episodes = sehen Sie alle Folgen.
cannot-play = Ihr Browser kann diese Datei hier nicht abspielen:
download-it = Laden Sie sie herunter.

## Der Player

player-of = Player: { $title }
download-the-episode = Folge herunterladen
play = Abspielen
pause = Pause
playback-speed = Wiedergabegeschwindigkeit
seek = Position
read-the-transcript = Transkript lesen

## Statistik und Diagramme

statistics = Statistik
downloads-per-month = Downloads pro Monat
apps = Apps
chart-axis-month = Monat
chart-axis-app = App
chart-unit-downloads = Downloads
stats-period = { $count ->
    [one] { $count } Download vom { $from } bis zum { $to } (UTC)
   *[other] { $count } Downloads vom { $from } bis zum { $to } (UTC)
}
stats-downloads-of = Downloads der Folgen von
stats-counted-how = , gezählt nach den IAB Podcast Measurement Guidelines (v2.3): Wiederholte Anfragen eines Hörers zählen einmal, Bots gar nicht. Vom Podcaster veröffentlicht; es werden keine Daten über Hörer gezeigt.
chart-line-description = { $title }: ein Liniendiagramm mit { $total } { $unit } über { $count ->
    [one] { $count } Punkt
   *[other] { $count } Punkte
}; die Tabelle daneben enthält die Zahlen.
chart-bar-description = { $title }: ein Balkendiagramm mit { $total } { $unit } in { $count ->
    [one] { $count } Kategorie
   *[other] { $count } Kategorien
}; die Tabelle daneben enthält die Zahlen.
chart-column-description = { $title }: ein Säulendiagramm mit { $total } { $unit } in { $count ->
    [one] { $count } Kategorie
   *[other] { $count } Kategorien
}; die Tabelle daneben enthält die Zahlen.
chart-drawn = (die { $drawn } größten gezeichnet; alle { $count } in der Tabelle)
chart-drawn-and-tabled = (die { $drawn } größten gezeichnet, die { $tabled } größten in der Tabelle, von { $count })
chart-nothing-counted = In diesem Zeitraum wurde nichts gezählt
chart-numbers = { $title }: die Zahlen

## Hinweise

notice-not-found = Nicht gefunden
notice-not-found-text = Unter dieser Adresse gibt es keinen Podcast und keine Folge. Vielleicht ist sie noch nicht veröffentlicht.
notice-gone = Dieser Podcast wurde gelöscht
notice-gone-text = Seine Folgen und sein Feed sind hier nicht mehr verfügbar.
notice-bad-page-number = Diese Seite gibt es nicht
notice-bad-page-number-text = Eine Seite der Folgen wird mit ihrer Nummer aufgerufen: einer ganzen Zahl ab 1.

## Angemeldete Seiten

site-nav-label = Website
site-nav-account = Konto
site-statistics = Statistik
site-signed-in-as = Angemeldet als { $name }
site-signed-in-as-member = Angemeldet als { $name } im Konto { $account }
site-sign-out = Abmelden
site-back = Zurück
site-back-to-account = Zurück zu Ihrem Konto
site-back-to-sign-in = Zurück zur Anmeldung
site-back-to-invitation = Zurück zur Einladung
site-home-intro = Dieser Server hostet Podcasts: ihre RSS-Feeds, das Audio ihrer Folgen und ihre Webseiten.
site-home-podcasters = Für Podcaster
site-home-sign-in-link = Melden Sie sich an
site-home-sign-in = { $link }, um persönliche API-Tokens und OAuth-Clients anzulegen und zu sehen, was Sie Anwendungen erlaubt haben.
site-home-reference-link = ihre Referenz
site-home-api = Die REST-API: { $reference } und ihr OpenAPI-Dokument für Werkzeuge: { $openapi }.
site-home-podcasts = Podcasts auf diesem Server
site-home-none = Noch keine.
site-home-more = Und weitere.
site-sign-in = Anmelden
site-sign-in-login = Anmeldename (Ihr Name oder Ihre E-Mail-Adresse)
site-password = Passwort
site-sign-in-passwords = Passwörter setzt ein Administrator mit { $command }.
site-sign-in-wrong = Anmeldename oder Passwort ist falsch.
site-signed-out = Sie sind nicht angemeldet (oder Ihre Sitzung ist abgelaufen). Melden Sie sich an und versuchen Sie es dann noch einmal.
site-too-many-title = Zu viele Versuche
site-too-many-text = Die Anmeldung ist zu oft fehlgeschlagen. Versuchen Sie es in { $seconds ->
    [one] einer Sekunde
   *[other] { $seconds } Sekunden
} noch einmal.
site-not-found-title = Nicht gefunden
site-not-found-text = Hier gibt es nichts (oder es gehört nicht Ihnen).
site-form-unreadable-title = Das Formular konnte nicht gelesen werden
site-form-unreadable-text = Ein Formular wird als application/x-www-form-urlencoded gesendet, mit höchstens 64 KB.
site-form-refused-title = Das Formular wurde abgelehnt
site-form-refused-text = Es wurde nicht von einer Seite dieser Website gesendet, oder die Seite ist zu alt. Gehen Sie zurück, laden Sie die Seite neu und versuchen Sie es noch einmal.
site-failure-title = Etwas ist schiefgelaufen
site-failure-text = Der Server konnte das gerade nicht erledigen. Versuchen Sie es gleich noch einmal.
site-role-owner = Inhaber
site-role-admin = Administrator
site-role-editor = Redakteur
site-role-author = Autor
site-role-analyst = Analyst
site-scope-media = Mediendateien hochladen, ändern und löschen
site-scope-media-read-only = Mediendateien ansehen
site-scope-feeds = Podcasts anlegen, ändern und löschen
site-scope-feeds-read-only = Podcasts ansehen
site-scope-shows = Folgen anlegen, ändern, veröffentlichen und löschen
site-scope-shows-read-only = Folgen ansehen, auch Entwürfe
site-scope-webhooks = Webhook-Abonnements und -Zustellungen verwalten
site-scope-stats = Download-Statistik ansehen
site-scope-tokens = Persönliche Tokens und OAuth-Clients verwalten
site-scope-metrics = Die Metriken des Servers lesen
site-scope-ads = Werbekampagnen anlegen, ändern, pausieren und löschen
site-scope-ads-read-only = Werbekampagnen und ihre Statistik ansehen
site-scope-members = Mitglieder einladen, ihre Rollen ändern und sie entfernen
site-scope-members-read-only = Die Mitglieder des Kontos ansehen und wer was getan hat
site-scopes = Berechtigungen
site-account-title = Ihr Konto
site-account-heading = Konto { $name }
site-account-signed-in = Angemeldet als { $login }, Rolle in diesem Konto: { $role }.
site-accounts = Ihre Konten
site-accounts-current = { $account } (dieses Konto)
site-switch-to = Zu { $account } wechseln
site-tokens = Persönliche Tokens
site-tokens-help = Ein persönliches Token wird der API als { $header } mitgeschickt.
site-tokens-none = Noch keine Tokens.
site-label = Bezeichnung
site-created = Erstellt
site-last-used = Zuletzt verwendet
site-state = Status
site-never = nie
site-active = aktiv
site-revoked-at = widerrufen am { $at }
site-revoke = Widerrufen
site-revoke-named = { $name } widerrufen
site-new-token = Neues Token
site-token-label-example = z. B. Upload-Skript
site-create-token = Token erstellen
site-token-created = Token „{ $label }“ erstellt
site-token-shown-once = Kopieren Sie es jetzt: Es wird nur dieses eine Mal angezeigt.
site-token-not-created = Das Token wurde nicht erstellt.
site-clients = OAuth-Clients
site-clients-help = Anwendungen, die Podcaster um Zugriff auf ihre Konten bitten (OAuth 2 mit PKCE).
site-clients-none = Noch keine Clients.
site-name = Name
site-client-id = Client-ID
site-kind = Art
site-redirect-uris = Weiterleitungs-URIs
site-kind-public = öffentlich
site-kind-confidential = vertraulich
site-kind-invalid = { $kind }: public (öffentlich) oder confidential (vertraulich)
site-delete = Löschen
site-delete-named = { $name } löschen
site-new-client = Neuer Client
site-client-name-field = Name (wird Nutzern gezeigt, die um ihre Zustimmung gebeten werden)
site-client-uris-field = Weiterleitungs-URIs, eine pro Zeile (https, oder http auf Loopback)
site-kind-public-choice = öffentlich (eine App im Browser oder auf einem Gerät)
site-kind-confidential-choice = vertraulich (ein Server, der ein Geheimnis sicher verwahrt)
site-create-client = Client erstellen
site-client-created = Client „{ $name }“ erstellt
site-client-id-shown = Client-ID: { $id }
site-client-secret-shown = Client-Secret (wird nur dieses eine Mal angezeigt; kopieren Sie es jetzt):
site-client-not-created = Der Client wurde nicht erstellt.
site-grants = Von Ihnen erlaubte Anwendungen
site-grants-none = Keine.
site-application = Anwendung
site-allowed = Erlaubt
site-consent-title = Zugriff erlauben?
site-consent-heading = „{ $client }“ Zugriff auf Ihr Konto erlauben?
site-consent-asks = { $client } bittet um Zugriff auf das Konto { $account }, um Folgendes zu tun:
site-consent-back = Danach werden Sie zu { $uri } zurückgeleitet. Sie können den Zugriff jederzeit auf Ihrer Kontoseite widerrufen.
site-allow = Erlauben
site-deny = Ablehnen
site-authorize-invalid = Diese Autorisierungsanfrage ist ungültig
site-members = Mitglieder
site-members-help = Personen mit einer Rolle in diesem Konto. Inhaber und Administratoren verwalten sie.
site-login = Anmeldename
site-role = Rolle
site-podcasts = Podcasts
site-status = Status
site-status-invited = eingeladen
site-role-of = Rolle von { $login }
site-change = Ändern
site-change-role-of = Rolle von { $login } ändern
site-all-podcasts = alle
site-remove = Entfernen
site-remove-named = { $login } entfernen
site-invite-heading = Jemanden einladen
site-invite-login = Anmeldename (ein Name oder eine E-Mail-Adresse)
site-invite = Einladen
site-invited = { $login } eingeladen
site-invited-link = Senden Sie diesen Link an die Person. Er funktioniert einmal, { $days ->
    [one] einen Tag
   *[other] { $days } Tage
} lang, und wird nicht noch einmal angezeigt:
site-nobody-invited = Niemand wurde eingeladen.
site-member-not-changed = Das Mitglied wurde nicht geändert.
site-member-not-removed = Das Mitglied wurde nicht entfernt.
site-join-title = Einem Konto beitreten
site-join-heading = Dem Konto { $account } beitreten
site-join-text = Sie wurden in das Konto { $account } eingeladen, mit der Rolle { $role } und dem Anmeldenamen { $login }.
site-join-known-login = Sie haben bereits einen Zugang zu podhost: Melden Sie sich mit Ihrem Passwort an, um beizutreten.
site-sign-in-and-join = Anmelden und beitreten
site-your-name = Ihr Name
site-choose-password = Wählen Sie ein Passwort (mindestens { $min } Zeichen)
site-password-again = Passwort wiederholen
site-join = Beitreten
site-invitation-broken-title = Diese Einladung funktioniert nicht
site-invitation-broken-text = Sie wurde bereits verwendet, ist abgelaufen (Einladungen gelten { $days ->
    [one] einen Tag
   *[other] { $days } Tage
}) oder der Link ist unvollständig. Bitten Sie um eine neue Einladung.
site-passwords-differ = Die beiden Passwörter stimmen nicht überein.
site-password-wrong = Das Passwort ist falsch.
site-stats-sign-in = Melden Sie sich an, um die Statistik zu sehen.
site-stats-not-shown = Die Statistik kann nicht angezeigt werden.
site-stats-bad-day = { $field }: muss ein Tag im Format JJJJ-MM-TT sein
site-stats-period = Zeitraum
site-stats-presets = Vorgegebene Zeiträume
site-stats-last-days = { $days ->
    [one] Letzter Tag
   *[other] Letzte { $days } Tage
}
site-stats-last-months = { $months ->
    [one] Letzter Monat
   *[other] Letzte { $months } Monate
}
site-stats-from = Von
site-stats-to = Bis
site-stats-show = Anzeigen
site-stats-summary = { $total ->
    [one] { $shown } Download
   *[other] { $shown } Downloads
} vom { $from } bis zum { $to } (Tage in UTC), gezählt nach den IAB Podcast Measurement Guidelines v2.3.
site-stats-nothing-counted = In diesem Zeitraum wurde nichts gezählt. Wählen Sie oben einen anderen Zeitraum.
site-stats-no-impressions = Noch keine Impressionen: Die Werbung der Kampagne wurde noch nicht gehört.
site-stats-downloads-per-day = Downloads pro Tag
site-stats-day = Tag
site-stats-downloads-unit = Downloads
site-stats-downloads = Downloads
site-stats-apps = Apps
site-stats-app = App
site-stats-platforms = Plattformen
site-stats-platform = Plattform
site-stats-countries = Länder
site-stats-country = Land
site-stats-country-unknown = Unbekannt
site-stats-hours = Tageszeit (UTC)
site-stats-hour = Stunde
site-stats-podcast = Podcast
site-stats-each-podcast = Die einzelnen Podcasts
site-stats-no-podcasts = Noch keine Podcasts.
site-stats-campaigns = Kampagnen
site-stats-impressions-count = { $count ->
    [one] { $count } Impression
   *[other] { $count } Impressionen
}
site-stats-median = Median
site-stats-first-days = Die ersten { $days } Tage der Folgen im Vergleich zum Median
site-stats-episodes = Folgen
site-stats-episode = Folge
site-stats-curves = Folgen im gleichen Alter
site-stats-curves-help = Die Downloads der neuesten Folgen an jedem Tag nach der Veröffentlichung (Tag 1: ihre ersten 24 Stunden), verglichen mit dem Median der Folgen des Podcasts aus dem letzten Jahr, die diesen Tag erreicht haben. Unabhängig vom Zeitraum oben.
site-stats-no-recent-episode = Im letzten Jahr wurde keine Folge veröffentlicht.
site-stats-impressions-per-day = Impressionen pro Tag
site-stats-impressions-unit = Impressionen
site-stats-impressions = Impressionen
site-stats-campaign-summary = { $count ->
    [one] { $shown } Impression
   *[other] { $shown } Impressionen
} seit der Erstellung ({ $created }), gezählt nach den IAB-Richtlinien v2.3: Jedes Byte der Werbung wurde an die Hörer ausgeliefert.
site-stats-episode-of = { $episode } ({ $podcast })
site-stats-day-tick = { $day }. { $month }
site-month-1 = Jan.
site-month-2 = Feb.
site-month-3 = März
site-month-4 = Apr.
site-month-5 = Mai
site-month-6 = Juni
site-month-7 = Juli
site-month-8 = Aug.
site-month-9 = Sept.
site-month-10 = Okt.
site-month-11 = Nov.
site-month-12 = Dez.
site-fediverse = Fediverse
site-fediverse-sign-in = Melden Sie sich an, um die Follower und Kommentare Ihrer Podcasts im Fediverse zu sehen.
site-fediverse-intro = Ihren öffentlichen Podcasts kann man mit Mastodon und anderen Fediverse-Apps folgen, und man kann auf die Beiträge ihrer Folgen antworten: Diese Antworten sind die Kommentare. Blenden Sie aus, was nicht auf der Seite einer Folge erscheinen soll, und blockieren Sie Konten oder ganze Instanzen.
site-fediverse-podcasts = Ihre Podcasts
site-fediverse-no-podcasts = Noch keine Podcasts.
site-fediverse-follower-count = { $count ->
    [one] { $count } Follower
   *[other] { $count } Follower
}
site-fediverse-off = nicht im Fediverse (privat oder ausgeschaltet)
site-fediverse-podcast-off = Dieser Podcast ist nicht im Fediverse: Er ist privat, oder sein Fediverse-Profil ist ausgeschaltet. Die Kommentare, die er vorher bekommen hat, bleiben hier.
site-fediverse-followers = { $count ->
    [0] Noch folgt niemand { $handle } im Fediverse.
    [one] Ein Konto folgt { $handle } im Fediverse.
   *[other] { $shown } Konten folgen { $handle } im Fediverse.
}
site-fediverse-comments = Kommentare
site-fediverse-comments-help = Antworten auf die Beiträge der Folgen im Fediverse, als Gesprächsverläufe, ausgeblendete eingeschlossen. Ein ausgeblendeter Kommentar bleibt hier, erscheint aber nicht auf der Seite der Folge.
site-fediverse-comments-none = Noch keine Kommentare.
site-fediverse-comment-count = { $count ->
    [one] { $count } Kommentar
   *[other] { $count } Kommentare
}
site-fediverse-hidden = ausgeblendet
site-fediverse-blocked = blockiert
site-fediverse-hide = Ausblenden
site-fediverse-hide-named = Kommentar von { $name } ausblenden
site-fediverse-show = Einblenden
site-fediverse-show-named = Kommentar von { $name } einblenden
site-fediverse-block = Blockieren
site-fediverse-block-named = { $handle } blockieren
site-fediverse-comment-not-changed = Der Kommentar wurde nicht geändert.
site-fediverse-blocks = Blockierte Konten und Instanzen
site-fediverse-blocks-help = Eine Blockierung gilt für alle Podcasts dieses Kontos: Die Blockierten folgen nicht mehr, ihre Kommentare werden ausgeblendet, und nichts mehr von ihnen wird angenommen. Wird eine Blockierung aufgehoben, bleiben ihre Kommentare ausgeblendet, bis Sie sie wieder einblenden.
site-fediverse-blocks-none = Niemand ist blockiert.
site-fediverse-blocked-target = Blockiert
site-fediverse-kind = Art
site-fediverse-kind-actor = Konto
site-fediverse-kind-instance = Instanz
site-fediverse-since = Seit
site-fediverse-unblock = Aufheben
site-fediverse-unblock-named = Blockierung von { $target } aufheben
site-fediverse-new-block = Ein Konto oder eine Instanz blockieren
site-fediverse-target = Die URL eines Kontos (https://example.social/users/name) oder der Hostname einer Instanz (example.social)
site-fediverse-blocks-restricted = Blockieren dürfen nur Mitglieder, die alle Podcasts dieses Kontos sehen: Eine Blockierung gilt für alle.
site-fediverse-not-blocked = Es wurde nichts blockiert.
site-fediverse-not-unblocked = Die Blockierung wurde nicht aufgehoben.
