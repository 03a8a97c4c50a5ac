//! The HTTP/1.1 wire side of [`super::ScriptServer`]: parsing one request
//! (request line, headers, `Content-Length` or chunked body) and writing one
//! [`WireReply`] (whole, or chunked frame by frame with its [`StreamEnd`]).

use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::message::{StreamEnd, WireBody, WireReply};

/// Largest request head (request line + headers) the server accepts, in bytes.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Read buffer size per socket read, in bytes.
const READ_CHUNK_BYTES: usize = 16 * 1024;

/// A parsed request before capture.
pub(super) struct RawRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub received_at: Instant,
}

/// Reads one request; None when the peer closed or sent garbage.
pub(super) async fn read_request(socket: &mut TcpStream, buf: &mut Vec<u8>) -> Option<RawRequest> {
    let mut received_at = (!buf.is_empty()).then(Instant::now);
    let head_end = loop {
        if let Some(pos) = find(buf, b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > MAX_HEAD_BYTES {
            return None;
        }
        read_more(socket, buf).await?;
        received_at.get_or_insert_with(Instant::now);
    };
    let received_at = received_at.unwrap_or_else(Instant::now);
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    buf.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let body = if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        read_chunked(socket, buf).await?
    } else {
        let len: usize = get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        while buf.len() < len {
            read_more(socket, buf).await?;
        }
        buf.drain(..len).collect()
    };
    Some(RawRequest {
        method,
        path,
        headers,
        body,
        received_at,
    })
}

async fn read_chunked(socket: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(p) = find(buf, b"\r\n") {
                break p;
            }
            read_more(socket, buf).await?;
        };
        let size_text = String::from_utf8_lossy(&buf[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        buf.drain(..line_end + 2);
        while buf.len() < size + 2 {
            read_more(socket, buf).await?;
        }
        body.extend(buf.drain(..size));
        buf.drain(..2);
        if size == 0 {
            return Some(body);
        }
    }
}

async fn read_more(socket: &mut TcpStream, buf: &mut Vec<u8>) -> Option<()> {
    let mut chunk = [0u8; READ_CHUNK_BYTES];
    match socket.read(&mut chunk).await {
        Ok(0) | Err(_) => None,
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Some(())
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// Writes a reply; returns whether the connection may serve another request.
pub(super) async fn write_reply(socket: &mut TcpStream, reply: &WireReply) -> bool {
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    match &reply.body {
        WireBody::Full(body) => {
            head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
            head.push_str(body);
            socket.write_all(head.as_bytes()).await.is_ok() && socket.flush().await.is_ok()
        }
        WireBody::Stream { frames, end } => {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            if socket.write_all(head.as_bytes()).await.is_err() || socket.flush().await.is_err() {
                return false;
            }
            for frame in frames {
                if !frame.delay.is_zero() {
                    tokio::time::sleep(frame.delay).await;
                }
                if frame.data.is_empty() {
                    continue; // a zero-length chunk would end the body
                }
                let data = match reply.encode_frame {
                    Some(encode) => (encode.0)(&frame.data),
                    None => frame.data.as_bytes().to_vec(),
                };
                let mut chunk = format!("{:x}\r\n", data.len()).into_bytes();
                chunk.extend_from_slice(&data);
                chunk.extend_from_slice(b"\r\n");
                if socket.write_all(&chunk).await.is_err() || socket.flush().await.is_err() {
                    return false;
                }
            }
            match end {
                StreamEnd::Complete => end_body(socket).await,
                StreamEnd::CompleteAfter(delay) => {
                    tokio::time::sleep(*delay).await;
                    end_body(socket).await
                }
                StreamEnd::Abort => false,
                StreamEnd::Hang => std::future::pending().await,
            }
        }
    }
}

/// The final zero-length chunk; true when it was sent.
async fn end_body(socket: &mut TcpStream) -> bool {
    socket.write_all(b"0\r\n\r\n").await.is_ok() && socket.flush().await.is_ok()
}
