//! A connection's socket that sends the pages of stored files without copying them: a body
//! chunk that is a window of a file mapped for a download
//! ([`podhost_core::file_behind`]) goes out by `sendfile(2)` from the file's page cache, as
//! nginx sends static files; every other byte is written as usual. The bytes on the wire are
//! the same either way: hyper hands the chunk over intact, and only where it does (a chunk at
//! the front of a write) is it sent from the file. The bytes before such a chunk in one write
//! (an answer's head) are sent with `MSG_MORE`, so that they leave in the same segments as the
//! file's first bytes, as nginx's `tcp_nopush` has it, rather than as a packet of their own.

use std::{
    io::{self, IoSlice},
    pin::Pin,
    task::{Context, Poll, ready},
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::TcpStream,
};

/// A TCP connection of the API whose writes of mapped file windows go by `sendfile(2)`.
#[derive(Debug)]
pub(crate) struct SendfileStream {
    tcp: TcpStream,
}

impl SendfileStream {
    pub(crate) fn new(tcp: TcpStream) -> Self {
        SendfileStream { tcp }
    }

    /// Sends `len` bytes of `file` from `offset` on the socket: how many went.
    #[cfg(target_os = "linux")]
    fn poll_send_file(
        &self,
        cx: &mut Context<'_>,
        slice: &podhost_core::FileSlice,
        len: usize,
    ) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.tcp.poll_write_ready(cx))?;
            let sent = self.tcp.try_io(tokio::io::Interest::WRITABLE, || {
                let mut offset = slice.offset;
                rustix::fs::sendfile(&self.tcp, &*slice.file, Some(&mut offset), len)
                    .map_err(io::Error::from)
            });
            match sent {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                // The file was cut short under the mapping (it never is: stored files are
                // replaced, not changed): nothing more can go from it.
                Ok(0) => {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "a stored file ended before its window",
                    )));
                }
                other => return Poll::Ready(other),
            }
        }
    }

    /// Writes `bufs` with `MSG_MORE`: the kernel holds them for the bytes that follow (sent
    /// next, by `sendfile`), so both go out in the same segments.
    #[cfg(target_os = "linux")]
    fn poll_send_more(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.tcp.poll_write_ready(cx))?;
            let sent = self.tcp.try_io(tokio::io::Interest::WRITABLE, || {
                rustix::net::sendmsg(
                    &self.tcp,
                    bufs,
                    &mut rustix::net::SendAncillaryBuffer::default(),
                    rustix::net::SendFlags::MORE | rustix::net::SendFlags::NOSIGNAL,
                )
                .map_err(io::Error::from)
            });
            match sent {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => return Poll::Ready(other),
            }
        }
    }

    /// Writes `bufs` in order: a run of ordinary bytes by one vectored write, a mapped file's
    /// window at the front by `sendfile(2)`. Returns how many bytes of the front went.
    fn poll_send(&mut self, cx: &mut Context<'_>, bufs: &[IoSlice<'_>]) -> Poll<io::Result<usize>> {
        #[cfg(target_os = "linux")]
        {
            // One look per slice: the first that is a window goes by `sendfile` when it is at
            // the front, else the slices before it are written now and it goes next time.
            let (mut plain, mut before) = (0, 0);
            for buf in bufs {
                if let Some(slice) = podhost_core::file_behind(buf) {
                    if before == 0 {
                        return self.poll_send_file(cx, &slice, buf.len());
                    }
                    // A file's window follows: these bytes wait for it.
                    return self.poll_send_more(cx, &bufs[..plain]);
                }
                plain += 1;
                before += buf.len();
            }
            Pin::new(&mut self.tcp).poll_write_vectored(cx, &bufs[..plain])
        }
        #[cfg(not(target_os = "linux"))]
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }
}

impl AsyncRead for SendfileStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for SendfileStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_send(cx, &[IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_send(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}
