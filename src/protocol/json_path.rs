//! The path of the value a decoding error is about (`action.activeClient.tools[0].name`),
//! from [`DecodeError::path`](super::decode::DecodeError::path).

use std::fmt;

/// One step of a path: an object member or an array element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// An object member, by (unescaped) key.
    Key(String),
    /// An array element, by index.
    Index(usize),
}

/// The path from the root of a JSON text to one of its values (empty: the root itself).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsonPath(pub(crate) Vec<Segment>);

impl JsonPath {
    /// The steps from the root, outermost first.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// `true` for the root value itself.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// `a.b[0].c`, keys that are not identifiers as `["a b"]`, `""` for the root: the form
    /// used in `InvalidInputError.path` (the same as `js/checks.js`).
    #[cfg(any(target_arch = "wasm32", test))]
    pub(crate) fn to_js_string(&self) -> String {
        let mut out = String::new();
        for segment in &self.0 {
            match segment {
                Segment::Index(index) => {
                    out.push_str(&format!("[{index}]"));
                }
                Segment::Key(key) if is_identifier(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Segment::Key(key) => {
                    out.push('[');
                    out.push_str(&super::encode::to_text(key.as_str()));
                    out.push(']');
                }
            }
        }
        out
    }
}

/// `a.b[0].c` with keys as they are, `.` for the root (the form of `invalid params at ...`).
impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str(".");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Index(index) => write!(f, "[{index}]")?,
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(key)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(any(target_arch = "wasm32", test))]
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}
