//! Debian's nginx for tests: one process in the foreground, in a folder of its own, on a free
//! loopback port, stopped (and its folder removed) when dropped.

use std::path::PathBuf;
use std::time::Duration;

/// A running nginx: it listens on `127.0.0.1:port`.
pub struct Nginx {
    _child: tokio::process::Child,
    dir: PathBuf,
    pub port: u16,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn binary() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("nginx is not installed: `apt-get install nginx` (./scripts/test installs it)")
}

impl Nginx {
    /// Starts nginx with `http` (what goes in its `http {}` block: upstreams, a `server`)
    /// made for the port it listens on; returns once that port answers (at most 20 s).
    pub async fn start(http: impl FnOnce(u16) -> String) -> Nginx {
        let port = crate::free_port();
        let dir =
            std::env::temp_dir().join(format!("toolsmith-nginx-{}-{port}", std::process::id()));
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        let temp = dir.join("tmp").display().to_string();
        let config = format!(
            "daemon off;\nmaster_process off;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\n\
             events {{}}\nhttp {{\n  access_log off;\n  client_body_temp_path {temp};\n  \
             proxy_temp_path {temp};\n  fastcgi_temp_path {temp};\n  uwsgi_temp_path {temp};\n  \
             scgi_temp_path {temp};\n{http}\n}}\n",
            dir = dir.display(),
            http = http(port),
        );
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config).unwrap();
        let error_log = dir.join("error.log");
        let child = tokio::process::Command::new(binary())
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&conf)
            .arg("-e")
            .arg(&error_log)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Nginx {
                    _child: child,
                    dir,
                    port,
                };
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let log = std::fs::read_to_string(&error_log).unwrap_or_default();
        panic!("nginx did not listen on 127.0.0.1:{port} within 20 s:\n{log}");
    }
}
