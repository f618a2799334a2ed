//! Writing a bundle: a zip archive of `manifest.json` and the server binary under `server/`
//! (executable), and its SHA-256 (of the file once written: the archive's writer seeks back),
//! for `server.json`.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

use super::{Bundle, BundleError};

/// A bundle written: where, and its SHA-256 (hex), which `server.json` names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Packed {
    /// The `.mcpb` file.
    pub path: PathBuf,
    /// Its SHA-256, in lower-case hex.
    pub sha256: String,
}

impl Bundle {
    /// Writes the bundle into the folder `dir` (made when missing) as
    /// [`Bundle::file_name`], replacing one already there.
    pub fn write(&self, dir: &Path) -> Result<Packed, BundleError> {
        let manifest = self.manifest()?;
        let io = |what: String| move |source| BundleError::Io { what, source };
        let binary = std::fs::read(&self.binary).map_err(io(format!(
            "reading the server binary {}",
            self.binary.display()
        )))?;
        std::fs::create_dir_all(dir).map_err(io(format!("making {}", dir.display())))?;
        let path = dir.join(self.file_name());
        let partial = dir.join(format!(".{}.partial", self.file_name()));
        let written = write_zip(&partial, &manifest, &self.binary_name()?, &binary)
            .map_err(io(format!("writing {}", partial.display())));
        if let Err(err) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(err);
        }
        std::fs::rename(&partial, &path).map_err(io(format!("writing {}", path.display())))?;
        let bytes = std::fs::read(&path).map_err(io(format!("reading {}", path.display())))?;
        Ok(Packed {
            path,
            sha256: hex(&Sha256::digest(&bytes)),
        })
    }
}

fn write_zip(
    path: &Path,
    manifest: &serde_json::Value,
    binary_name: &str,
    binary: &[u8],
) -> io::Result<()> {
    let mut zip = zip::ZipWriter::new(File::create(path)?);
    let deflated =
        SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("manifest.json", deflated.unix_permissions(0o644))
        .map_err(io::Error::other)?;
    let text = serde_json::to_vec_pretty(manifest).map_err(io::Error::other)?;
    zip.write_all(&text)?;
    zip.start_file(
        format!("server/{binary_name}"),
        deflated.unix_permissions(0o755),
    )
    .map_err(io::Error::other)?;
    zip.write_all(binary)?;
    zip.finish().map_err(io::Error::other)?.sync_all()
}

/// `bytes` in lower-case hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use crate::bundle::Bundle;

    #[test]
    fn a_bundle_holds_its_manifest_and_the_binary_executable() {
        let dir = std::env::temp_dir().join(format!("toolsmith-pack-{}", std::process::id()));
        let binary = dir.join("srv");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&binary, b"\x7fELF not really").unwrap();
        let mut bundle = Bundle::new(&binary, "srv", "1.0.0");
        bundle.description = "A server.".into();
        bundle.author = "Ada".into();
        let packed = bundle.write(&dir.join("out")).unwrap();
        assert_eq!(
            packed.path.file_name().unwrap(),
            bundle.file_name().as_str()
        );
        assert_eq!(packed.sha256.len(), 64);
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&packed.path).unwrap()).unwrap();
        let mut manifest = String::new();
        zip.by_name("manifest.json")
            .unwrap()
            .read_to_string(&mut manifest)
            .unwrap();
        let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        assert_eq!(manifest["server"]["entry_point"], "server/srv");
        let server = zip.by_name("server/srv").unwrap();
        assert_eq!(server.unix_mode().map(|mode| mode & 0o777), Some(0o755));
        // Nothing half-written is left beside it.
        let left: Vec<_> = std::fs::read_dir(dir.join("out")).unwrap().collect();
        assert_eq!(left.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
