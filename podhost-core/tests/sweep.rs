//! The sweep on a local folder: what uploads cut off by a crash leave behind goes once it is old
//! enough; everything a record references, and everything young, stays.

use std::time::{Duration, SystemTime};

use futures::TryStreamExt;
use object_store::{ObjectStoreExt, WriteMultipart, path::Path};
use podhost_core::{HostConfig, PodcastHost};

fn wav() -> Vec<u8> {
    // 0.1 s of 8 kHz 16-bit mono silence with a RIFF header.
    let samples = 800u32;
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples * 2).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&16000u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(samples * 2).to_le_bytes());
    out.resize(out.len() + samples as usize * 2, 0);
    out
}

fn aged(path: &std::path::Path, by: Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - by).unwrap();
}

#[tokio::test]
async fn cut_off_uploads_and_orphan_blobs_go_once_old() {
    let dir = tempfile::tempdir().unwrap();
    let opened = podhost_core::open_store(dir.path().to_str().unwrap()).unwrap();
    let root = opened.local_root.clone().unwrap();
    let mut config = HostConfig::new("https://pod.test").unwrap();
    config.local_root = opened.local_root.clone();
    let host = PodcastHost::new(config, opened.store.clone());
    let alice = podhost_testkit::setup::account(&host, "alice").await;
    let bytes = wav();
    let kept = podhost_testkit::setup::upload(&host, &alice, "kept.wav", bytes.clone()).await;

    // An upload cut off midway: its staged bytes stay where the store stages uploads.
    let cut = Path::from("accounts/alice/blobs/cut-off");
    let mut upload = WriteMultipart::new(opened.store.put_multipart(&cut).await.unwrap());
    upload.write(&[7u8; 1000]);
    upload.wait_for_capacity(0).await.unwrap();
    std::mem::forget(upload); // a crash: no abort, no drop
    let staging = root.join(".podhost").join("staging");
    let staged: Vec<_> = std::fs::read_dir(&staging).unwrap().flatten().collect();
    assert_eq!(staged.len(), 1, "one upload in progress is staged");
    // A blob whose record never came (a crash between the upload and its commit).
    let orphan = Path::from("accounts/alice/blobs/orphan");
    opened
        .store
        .put(&orphan, vec![1u8; 10].into())
        .await
        .unwrap();

    // Young things stay: they may belong to uploads in progress.
    let report = host
        .work()
        .sweep(&"alice".parse().unwrap(), Duration::from_secs(3600))
        .await
        .unwrap();
    assert_eq!((report.orphan_blobs, report.staging_files), (0, 0));

    // Old enough, they go; the referenced blob stays.
    aged(&staged[0].path(), Duration::from_secs(7200));
    aged(
        &root.join("accounts/alice/blobs/orphan"),
        Duration::from_secs(7200),
    );
    aged(
        &root.join(format!("accounts/alice/blobs/{}", kept.blob.as_str())),
        Duration::from_secs(7200),
    );
    let report = host
        .work()
        .sweep(&"alice".parse().unwrap(), Duration::from_secs(3600))
        .await
        .unwrap();
    assert_eq!((report.orphan_blobs, report.staging_files), (1, 1));
    assert_eq!(std::fs::read_dir(&staging).unwrap().count(), 0);
    let blobs: Vec<_> = opened
        .store
        .list(Some(&Path::from("accounts/alice/blobs")))
        .try_collect()
        .await
        .unwrap();
    let names: Vec<_> = blobs.iter().filter_map(|m| m.location.filename()).collect();
    assert_eq!(names, vec![kept.blob.as_str()]);
}

#[tokio::test]
async fn a_local_upload_appears_whole_and_podhosts_own_folder_is_never_listed() {
    let dir = tempfile::tempdir().unwrap();
    let opened = podhost_core::open_store(dir.path().to_str().unwrap()).unwrap();
    let store = opened.store.clone();
    let path = Path::from("a/b/file");
    let mut upload =
        WriteMultipart::new_with_chunk_size(store.put_multipart(&path).await.unwrap(), 10);
    for i in 0..10u8 {
        upload.write(&[i; 7]);
    }
    assert!(
        store.get(&path).await.is_err(),
        "nothing is visible before the upload completes"
    );
    upload.finish().await.unwrap();
    let got = store.get(&path).await.unwrap().bytes().await.unwrap();
    let want: Vec<u8> = (0..10u8).flat_map(|i| [i; 7]).collect();
    assert_eq!(got.as_ref(), want.as_slice());
    // An aborted upload leaves nothing.
    let mut aborted = store.put_multipart(&Path::from("a/c")).await.unwrap();
    aborted.put_part(vec![1u8; 5].into()).await.unwrap();
    aborted.abort().await.unwrap();
    assert!(store.get(&Path::from("a/c")).await.is_err());
    // The scratch folder that goes with the store is inside it, and never listed.
    let scratch = opened.scratch_dir.unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("work"), b"x").unwrap();
    let all: Vec<_> = store.list(None).try_collect().await.unwrap();
    let listed: Vec<_> = all.iter().map(|m| m.location.to_string()).collect();
    assert_eq!(listed, vec!["a/b/file".to_string()]);
    let top = store.list_with_delimiter(None).await.unwrap();
    assert_eq!(top.common_prefixes, vec![Path::from("a")]);
}
