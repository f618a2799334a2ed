//! A configuration file's relative paths, taken from its folder rather than from the working
//! directory: an API's `openapi` document, a `ca_file`, and each `${file:PATH}` in a value
//! the gateway expands (`env`, `headers`, `credentials`, the secrets of `exchange` and
//! `sign_in`). A started server's `command` and `args` are the server's to read: it runs in
//! the gateway's working directory, as under Claude Desktop.

use std::path::Path;

use super::Config;

impl Config {
    /// `self` with its relative paths taken from `dir`, the folder of the file it was read
    /// from.
    pub(super) fn rooted(mut self, dir: &Path) -> Config {
        if dir.as_os_str().is_empty() {
            return self;
        }
        let root = |value: &str| crate::secret::rooted(value, dir);
        for server in self.servers.values_mut() {
            if let Some(document) = &mut server.openapi
                && !(document.starts_with("http://") || document.starts_with("https://"))
                && Path::new(document.as_str()).is_relative()
            {
                *document = dir.join(&*document).display().to_string();
            }
            if let Some(path) = &mut server.ca_file
                && path.is_relative()
            {
                *path = dir.join(&*path);
            }
            for value in server
                .env
                .values_mut()
                .chain(server.headers.values_mut())
                .chain(server.credentials.values_mut())
            {
                *value = root(value);
            }
            if let Some(exchange) = &mut server.exchange {
                exchange.root(&root);
            }
            if let Some(sign_in) = &mut server.sign_in {
                sign_in.root(&root);
            }
        }
        self
    }
}
