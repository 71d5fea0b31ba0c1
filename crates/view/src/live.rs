//! The live page: a small HTTP server on a loopback address that serves
//! the viewer's page at `/` and a stream of server-sent events at
//! [`LIVE_PATH`] (the WHATWG HTML "Server-sent events" section:
//! `text/event-stream`, one `data: <json>` line and a blank line per
//! message), which the page appends to its series as they come.
//!
//! Messages are JSON objects `{t, paths: [{name, cwnd, ssthresh, flight,
//! srtt_ms, rto_ms}], goodput: [{name, goodput_bps}], marks: [Mark]}`
//! (the live part of view.js). A browser that connects late first gets
//! what was published before (up to [`LiveConfig::max_history`]
//! messages). Plain threads and blocking sockets: a handful of browsers
//! on the local host, no runtime needed.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::data::ViewData;
use crate::page::{LIVE_PATH, render};

/// Bounds of the live server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveConfig {
    /// Browsers connected to the event stream at once (more are refused
    /// with 503).
    pub max_subscribers: usize,
    /// Messages kept for browsers that connect later (the oldest go first).
    pub max_history: usize,
    /// Bytes of a request read before it is refused.
    pub max_request_bytes: usize,
    /// A subscriber that does not take a message within this time is
    /// dropped (a stalled browser never stalls the transfer).
    pub write_timeout: Duration,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            max_subscribers: 16,
            max_history: 100_000,
            max_request_bytes: 8192,
            write_timeout: Duration::from_millis(200),
        }
    }
}

#[derive(Default)]
struct Shared {
    subscribers: Vec<TcpStream>,
    history: std::collections::VecDeque<String>,
}

/// The running server (its thread ends with the process).
pub struct LiveServer {
    addr: SocketAddr,
    cfg: LiveConfig,
    shared: Arc<Mutex<Shared>>,
}

impl LiveServer {
    /// Binds `addr` (use a loopback address: the page and the stream are
    /// served to whoever connects) and serves the page titled `title`.
    pub fn start(addr: SocketAddr, title: &str, cfg: LiveConfig) -> std::io::Result<LiveServer> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let page = Arc::new(render(
            &ViewData {
                title: title.to_string(),
                map: serde_json::Value::Null,
                paths_traced: false,
                ..Default::default()
            },
            true,
        ));
        let shared = Arc::new(Mutex::new(Shared::default()));
        let s = shared.clone();
        std::thread::Builder::new()
            .name("msctp-view-live".into())
            .spawn(move || {
                for conn in listener.incoming().flatten() {
                    let (page, s) = (page.clone(), s.clone());
                    // One short thread per request: a slow client cannot
                    // hold up the others.
                    let _ = std::thread::Builder::new()
                        .name("msctp-view-request".into())
                        .spawn(move || serve(conn, &page, &s, cfg));
                }
            })?;
        Ok(LiveServer { addr, cfg, shared })
    }

    /// Where the page is (`http://ADDR/`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Sends one message to every browser and keeps it for later ones.
    pub fn publish(&self, msg: &serde_json::Value) {
        let line = format!("data: {msg}\n\n");
        let mut s = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        s.subscribers.retain_mut(|c| {
            c.write_all(line.as_bytes())
                .and_then(|()| c.flush())
                .is_ok()
        });
        if s.history.len() >= self.cfg.max_history {
            s.history.pop_front();
        }
        s.history.push_back(line);
    }

    /// Browsers connected to the stream now.
    pub fn subscribers(&self) -> usize {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .subscribers
            .len()
    }
}

/// Reads the request head (bounded) and answers it.
fn serve(mut c: TcpStream, page: &str, shared: &Mutex<Shared>, cfg: LiveConfig) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(2)));
    let _ = c.set_write_timeout(Some(cfg.write_timeout));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match c.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > cfg.max_request_bytes {
            let _ = c.write_all(
                b"HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n",
            );
            return;
        }
    }
    let line = String::from_utf8_lossy(&head);
    let target = line.split_whitespace().nth(1).unwrap_or("");
    let path = target.split(['?', '#']).next().unwrap_or("");
    let method_ok = line.starts_with("GET ");
    if method_ok && path == LIVE_PATH {
        let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
        if s.subscribers.len() >= cfg.max_subscribers {
            let _ = c.write_all(b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
            return;
        }
        let mut out = String::from(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n",
        );
        for m in &s.history {
            out.push_str(m);
        }
        if c.write_all(out.as_bytes()).is_ok() {
            s.subscribers.push(c);
        }
    } else if method_ok && (path == "/" || path == "/index.html") {
        let _ = c.write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                page.len()
            )
            .as_bytes(),
        );
        let _ = c.set_write_timeout(Some(Duration::from_secs(5)));
        let _ = c.write_all(page.as_bytes());
    } else {
        let _ = c
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};

    fn get(addr: SocketAddr, path: &str) -> TcpStream {
        let mut c = TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(c, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        c
    }

    #[test]
    fn page_and_event_stream_with_history() {
        let s = LiveServer::start(
            "127.0.0.1:0".parse().unwrap(),
            "perf",
            LiveConfig {
                max_history: 2,
                ..Default::default()
            },
        )
        .unwrap();
        let mut page = String::new();
        get(s.addr(), "/").read_to_string(&mut page).unwrap();
        assert!(
            page.starts_with("HTTP/1.1 200 OK") && page.contains("window.MSCTP_LIVE = \"/events\"")
        );
        for t in 0..3 {
            s.publish(&serde_json::json!({ "t": t }));
        }
        // A late browser gets the last two, then what comes.
        let mut r = BufReader::new(get(s.addr(), LIVE_PATH));
        let mut lines = Vec::new();
        let mut l = String::new();
        while lines.len() < 2 {
            l.clear();
            r.read_line(&mut l).unwrap();
            if l.starts_with("data: ") {
                lines.push(l.trim_end().to_string());
            }
        }
        assert_eq!(lines, ["data: {\"t\":1}", "data: {\"t\":2}"]);
        while s.subscribers() == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        s.publish(&serde_json::json!({ "t": 3 }));
        loop {
            l.clear();
            r.read_line(&mut l).unwrap();
            if l.starts_with("data: ") {
                break;
            }
        }
        assert_eq!(l.trim_end(), "data: {\"t\":3}");
        let mut nf = String::new();
        get(s.addr(), "/etc/passwd")
            .read_to_string(&mut nf)
            .unwrap();
        assert!(nf.starts_with("HTTP/1.1 404"));
    }
}
