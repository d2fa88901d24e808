//! Fetching a bundle's map from a Metro dev server — opt-in, loopback only.
//!
//! A frame's URL `http://localhost:8081/index.bundle?platform=ios&dev=true` names the map Metro serves beside it:
//! `http://localhost:8081/index.map?platform=ios&dev=true`. Only `http://localhost`, `127.0.0.1` and `[::1]` are ever
//! contacted, `localhost` is connected as 127.0.0.1 (no name lookup), responses are capped in size, and the exchange
//! is one plain HTTP/1.1 GET (with `Content-Length`, chunked, or close-delimited bodies).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::Duration;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// The map URL for a dev-server bundle URL, or why it is not one we may contact.
pub fn map_url(bundle_url: &str) -> Result<url::Url, String> {
    let mut u = url::Url::parse(bundle_url).map_err(|e| format!("{bundle_url}: {e}"))?;
    if u.scheme() != "http" {
        return Err(format!(
            "{bundle_url}: only http:// dev servers are supported"
        ));
    }
    loopback_address(&u)?;
    let path = u.path().to_string();
    let (stem, _) = path
        .rsplit_once('.')
        .filter(|(_, ext)| !ext.contains('/'))
        .ok_or_else(|| format!("{bundle_url}: the URL does not name a bundle file"))?;
    u.set_path(&format!("{stem}.map"));
    u.set_fragment(None);
    Ok(u)
}

/// The socket address of a loopback URL; anything else is refused.
fn loopback_address(u: &url::Url) -> Result<SocketAddr, String> {
    let port = u.port_or_known_default().unwrap_or(80);
    let ip = match u.host() {
        Some(url::Host::Domain("localhost")) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => IpAddr::V4(ip),
        Some(url::Host::Ipv6(ip)) if ip == Ipv6Addr::LOCALHOST => IpAddr::V6(ip),
        _ => {
            return Err(format!(
                "{u}: only loopback dev servers (localhost, 127.0.0.1, [::1]) are contacted"
            ))
        }
    };
    Ok(SocketAddr::new(ip, port))
}

fn read_chunked(r: &mut impl BufRead, max: u64) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let mut size_line = String::new();
        r.read_line(&mut size_line).map_err(|e| e.to_string())?;
        let size_text = size_line.trim().split(';').next().unwrap_or("");
        let size = u64::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        if size == 0 {
            return Ok(body);
        }
        if body.len() as u64 + size > max {
            return Err(format!("the map is larger than the limit of {max} bytes"));
        }
        let start = body.len();
        body.resize(start + size as usize, 0);
        r.read_exact(&mut body[start..])
            .map_err(|e| e.to_string())?;
        let mut crlf = [0u8; 2];
        r.read_exact(&mut crlf).map_err(|e| e.to_string())?;
    }
}

/// GETs `url` from a loopback server; the body, or why not. `max` caps the body size.
pub fn get(url: &url::Url, max: u64) -> Result<Vec<u8>, String> {
    let addr = loopback_address(url)?;
    let stream =
        TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT).map_err(|e| format!("{url}: {e}"))?;
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let host = url.host_str().unwrap_or("localhost");
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {host}:{}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        addr.port()
    );
    (&stream)
        .write_all(request.as_bytes())
        .map_err(|e| format!("{url}: {e}"))?;
    let mut r = BufReader::new(stream);
    let mut status = String::new();
    r.read_line(&mut status)
        .map_err(|e| format!("{url}: {e}"))?;
    let code: u16 = status
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut length: Option<u64> = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        r.read_line(&mut line).map_err(|e| format!("{url}: {e}"))?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            match k.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse().ok(),
                "transfer-encoding" => chunked = v.to_ascii_lowercase().contains("chunked"),
                _ => {}
            }
        }
    }
    if code != 200 {
        return Err(format!("{url}: the dev server answered {}", status.trim()));
    }
    if chunked {
        return read_chunked(&mut r, max).map_err(|e| format!("{url}: {e}"));
    }
    if length.is_some_and(|l| l > max) {
        return Err(format!(
            "{url}: the map is larger than the limit of {max} bytes"
        ));
    }
    let mut body = Vec::new();
    r.take(length.unwrap_or(max + 1).min(max + 1))
        .read_to_end(&mut body)
        .map_err(|e| format!("{url}: {e}"))?;
    if body.len() as u64 > max {
        return Err(format!(
            "{url}: the map is larger than the limit of {max} bytes"
        ));
    }
    Ok(body)
}

/// Fetches a map from a loopback URL that names it (an attached map, the `maps` setting).
pub fn fetch_map_url(map_url: &str, max: u64) -> Result<Vec<u8>, String> {
    let u = url::Url::parse(map_url).map_err(|e| format!("{map_url}: {e}"))?;
    if u.scheme() != "http" {
        return Err(format!("{map_url}: only http:// dev servers are supported"));
    }
    get(&u, max)
}

/// Fetches the map of a dev-server bundle URL.
pub fn fetch_map(bundle_url: &str, max: u64) -> Result<Vec<u8>, String> {
    get(&map_url(bundle_url)?, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn map_urls_and_loopback_only() {
        assert_eq!(
            map_url("http://localhost:8081/index.bundle?platform=ios&dev=true")
                .unwrap()
                .as_str(),
            "http://localhost:8081/index.map?platform=ios&dev=true"
        );
        assert_eq!(
            map_url("http://127.0.0.1:8081/a/b.jsbundle")
                .unwrap()
                .path(),
            "/a/b.map"
        );
        for refused in [
            "http://example.com/index.bundle",
            "http://10.0.0.2:8081/index.bundle",
            "https://localhost/x.bundle",
            "file:///x.bundle",
        ] {
            assert!(map_url(refused).is_err(), "{refused}");
        }
    }

    /// A real loopback TCP server answering with a chunked body, then one with a Content-Length over the cap.
    #[test]
    fn reads_chunked_and_sized_bodies_with_a_cap() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            for response in [
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n".to_string(),
                "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n".to_string() + &"x".repeat(5000),
                "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_string(),
            ] {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = [0u8; 1024];
                let n = s.read(&mut buf).unwrap();
                assert!(String::from_utf8_lossy(&buf[..n]).starts_with("GET /index.map?platform=ios HTTP/1.1\r\n"));
                s.write_all(response.as_bytes()).unwrap();
            }
        });
        let bundle = format!("http://localhost:{port}/index.bundle?platform=ios");
        assert_eq!(fetch_map(&bundle, 1000).unwrap(), b"{\"a\": 1}");
        assert!(fetch_map(&bundle, 1000)
            .unwrap_err()
            .contains("larger than the limit"));
        assert!(fetch_map(&bundle, 1000).unwrap_err().contains("404"));
        server.join().unwrap();
    }
}
