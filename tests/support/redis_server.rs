//! A real `redis-server` for the pipeline's tests: never a mock.

use std::process::Command;

/// A `redis-server` (Debian's, `scripts/test-deps`) on a free loopback port, stopped when dropped.
pub struct Redis {
    child: std::process::Child,
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Redis {
    pub fn start() -> Redis {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server must be installed for this test (scripts/test-deps installs it)");
        let url = format!("redis://127.0.0.1:{port}/0");
        let started = std::time::Instant::now();
        loop {
            let up = redis::Client::open(url.as_str())
                .and_then(|c| c.get_connection())
                .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c));
            if up.is_ok() {
                break;
            }
            assert!(
                started.elapsed().as_secs() < 20,
                "redis-server did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Redis {
            child,
            url,
            _dir: dir,
        }
    }

    pub fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url.as_str())
            .unwrap()
            .get_connection()
            .unwrap()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
