//! `resourceResolve` (`stat` + `realpath`) and `resourceRequest` (access by place).

use super::content::etag;
use super::{file_uri, io_error, nonblocking, uri_path, Sandbox};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use ahp_wasm::protocol::{
    ResourceRequestParams, ResourceRequestResult, ResourceResolveParams, ResourceResolveResult,
    ResourceType,
};
use std::fs::Metadata;
use std::time::{SystemTime, UNIX_EPOCH};

impl Sandbox {
    /// `resourceResolve`: the metadata of what the URI names and its canonical URI. With
    /// `followSymlinks: false` a link inside the sandbox is reported as itself (`symlink`, the
    /// requested URI) wherever it points; otherwise it is followed, and must land inside. A
    /// regular file gets an [`etag`].
    pub fn resolve(&self, p: &ResourceResolveParams) -> Result<ResourceResolveResult, ErrorObject> {
        let path = uri_path(&p.uri)?;
        if p.follow_symlinks == Some(false) {
            let entry = self.entry(&path)?;
            let meta = std::fs::symlink_metadata(&entry).map_err(|e| io_error(e, "resource"))?;
            if meta.file_type().is_symlink() {
                return Ok(described(p.uri.clone(), ResourceType::Symlink, &meta, None));
            }
        }
        let real = self.existing(&path)?;
        let meta = std::fs::metadata(&real).map_err(|e| io_error(e, "resource"))?;
        let uri = if p.follow_symlinks == Some(false) {
            p.uri.clone()
        } else {
            file_uri(&real)
        };
        if meta.is_dir() {
            return Ok(described(uri, ResourceType::Directory, &meta, None));
        }
        if !meta.is_file() {
            // A FIFO, socket or device: a file for the protocol, with no content version.
            return Ok(described(uri, ResourceType::File, &meta, None));
        }
        let mut file = nonblocking(std::fs::OpenOptions::new().read(true))
            .open(&real)
            .map_err(|e| io_error(e, "resource"))?;
        let meta = file.metadata().map_err(|e| io_error(e, "resource"))?;
        let tag = etag(&mut file, &meta, self.max_read).map_err(|e| io_error(e, "resource"))?;
        Ok(described(uri, ResourceType::File, &meta, Some(tag)))
    }

    /// `resourceRequest`: this host grants by place. Everything inside the working directory
    /// may be read and written (a path that does not exist yet too: a file to create), so a
    /// request for it succeeds; nothing outside is granted (`PermissionDenied`, the same answer
    /// whether or not anything exists there). `read`/`write` ask for nothing more.
    pub fn request(&self, p: &ResourceRequestParams) -> Result<ResourceRequestResult, ErrorObject> {
        match self.existing(&uri_path(&p.uri)?) {
            Ok(_) => {}
            Err(e) if e.code == errors::NOT_FOUND => {}
            Err(e) => return Err(e),
        }
        Ok(ResourceRequestResult {
            extra: Default::default(),
        })
    }
}

fn described(
    uri: String,
    kind: ResourceType,
    meta: &Metadata,
    etag: Option<String>,
) -> ResourceResolveResult {
    ResourceResolveResult {
        uri,
        size: (kind != ResourceType::Directory).then_some(meta.len() as f64),
        r#type: kind,
        mtime: meta.modified().ok().and_then(iso8601),
        ctime: meta.created().ok().and_then(iso8601),
        content_type: None,
        etag,
        extra: Default::default(),
    }
}

/// A time in ISO 8601 (UTC, milliseconds), for times after the epoch.
fn iso8601(t: SystemTime) -> Option<String> {
    let since = t.duration_since(UNIX_EPOCH).ok()?;
    let secs = since.as_secs();
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        s / 3600,
        s % 3600 / 60,
        s % 60,
        since.subsec_millis()
    ))
}

/// The proleptic Gregorian date of a day number counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_are_iso_8601() {
        let at = |secs: u64, ms: u64| {
            iso8601(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(ms)).unwrap()
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(1_700_000_000, 123), "2023-11-14T22:13:20.123Z");
        assert_eq!(at(4_107_542_399, 0), "2100-02-28T23:59:59.000Z");
        assert_eq!(iso8601(UNIX_EPOCH - Duration::from_secs(1)), None);
    }
}
