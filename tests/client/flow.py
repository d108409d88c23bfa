"""A flow through podhost's API with a client generated from its OpenAPI document by a real
generator (openapi-python-client, pinned in scripts/api-clients): create a podcast, upload a
file, create an episode with it, list, update, delete. Each step checks what a client relies on.

Usage: flow.py BASE_URL TOKEN (the generated package `podhost_client` on PYTHONPATH).
"""

import io
import sys

from audio import tone
from podhost_client import AuthenticatedClient
from podhost_client.api.episodes import (
    create_episode,
    delete_episode,
    get_episode,
    list_episodes,
    update_episode,
)
from podhost_client.api.feeds import create_feed, delete_feed, get_feed
from podhost_client.api.media import get_media, upload_media
from podhost_client.models import CreateEpisodeBody, EpisodeFields, FeedCreate, UploadMediaBody
from podhost_client.types import File


def expect(response, status, what):
    if response.status_code != status:
        sys.exit(f"{what}: expected {status}, got {response.status_code}: {response.content[:500]!r}")
    return response.parsed


def main():
    base, token = sys.argv[1], sys.argv[2]
    client = AuthenticatedClient(base_url=base, token=token, raise_on_unexpected_status=True)

    made = expect(
        create_feed.sync_detailed(client=client, body=FeedCreate(id="generated", title="Made by a generated client")),
        201,
        "create a podcast",
    )
    assert made.data.id == "generated", made
    assert made.data.attributes.rss.title == "Made by a generated client"

    upload = UploadMediaBody(media=File(payload=io.BytesIO(tone()), file_name="tone.wav", mime_type="audio/wav"))
    media = expect(upload_media.sync_detailed(client=client, body=upload), 201, "upload a file")
    assert media.type_ == "audio", media
    assert expect(get_media.sync_detailed(media.id, client=client), 200, "read the file").name == "tone.wav"

    episode = expect(
        create_episode.sync_detailed(
            "generated",
            client=client,
            body=CreateEpisodeBody(title="Pilot", is_public=True, show_media=media.id, itunestitle="The pilot"),
        ),
        201,
        "create an episode with the file",
    ).data
    assert episode.attributes.show_media == media.id, episode
    assert episode.attributes.is_published == 1, episode
    assert episode.attributes.itunes.title == "The pilot", episode

    listed = expect(list_episodes.sync_detailed("generated", client=client), 200, "list the episodes").data
    assert [e.id for e in listed] == [episode.id], listed

    updated = expect(
        update_episode.sync_detailed("generated", episode.id, client=client, body=EpisodeFields(title="Pilot, again")),
        200,
        "update the episode",
    ).data
    assert updated.attributes.title == "Pilot, again", updated

    expect(delete_episode.sync_detailed("generated", episode.id, client=client), 204, "delete the episode")
    expect(get_episode.sync_detailed("generated", episode.id, client=client), 404, "the episode is gone")
    expect(delete_feed.sync_detailed("generated", client=client), 204, "delete the podcast")
    expect(get_feed.sync_detailed("generated", client=client), 404, "the podcast is gone")
    print("generated client: podcast, upload, episode, list, update, delete: all as documented")


if __name__ == "__main__":
    main()
