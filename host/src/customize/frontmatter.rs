//! YAML frontmatter of plugin markdown files (skills, agents, commands, prompts, rules).
//!
//! A file may open with a `---` line, YAML, and a closing `---` (or `...`) line; the rest is the
//! body. Only the fields the protocol carries are read; other keys are ignored. A field of the
//! wrong type is a warning (the field is dropped, the file still counts); YAML that does not
//! parse, is not a mapping or is never closed makes the file unusable. Parsing is bounded by
//! serde-saphyr's budgets (events, aliases, depth), so a hostile file costs little.

use serde::Deserialize;
use serde_json::Value;

/// Longest name kept (characters); longer ones are cut.
pub const MAX_NAME_CHARS: usize = 128;
/// Longest description kept (characters; the Open Plugins limit).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Most globs kept for a rule.
pub const MAX_GLOBS: usize = 64;
/// Largest frontmatter block parsed, in bytes.
pub const MAX_FRONTMATTER_BYTES: usize = 16 * 1024;

/// The metadata a file's frontmatter gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `disable-model-invocation` (skills and commands).
    pub disable_model_invocation: Option<bool>,
    /// `alwaysApply` (rules).
    pub always_apply: Option<bool>,
    /// `globs` (rules; also VS Code's `applyTo`): a list, or one comma-separated string.
    pub globs: Option<Vec<String>>,
}

/// A parsed file: its metadata, its body and what was wrong with fields that were dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<'a> {
    /// The frontmatter's fields.
    pub meta: Meta,
    /// Everything after the frontmatter (the whole text when there is none).
    pub body: &'a str,
    /// Fields of the wrong type (dropped).
    pub warnings: Vec<String>,
}

/// The keys read; each as a raw value so one bad field does not spoil the others.
#[derive(Deserialize, Default)]
struct Raw {
    name: Option<Value>,
    description: Option<Value>,
    #[serde(rename = "disable-model-invocation")]
    disable_model_invocation: Option<Value>,
    #[serde(rename = "alwaysApply")]
    always_apply: Option<Value>,
    globs: Option<Value>,
    #[serde(rename = "applyTo")]
    apply_to: Option<Value>,
}

/// Splits off and parses the frontmatter of `text`.
pub fn parse(text: &str) -> Result<Parsed<'_>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((yaml, body)) = split(text)? else {
        return Ok(Parsed {
            meta: Meta::default(),
            body: text,
            warnings: Vec::new(),
        });
    };
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(format!(
            "frontmatter of {} bytes, over the limit of {MAX_FRONTMATTER_BYTES}",
            yaml.len()
        ));
    }
    let raw = if yaml.trim().is_empty() {
        Raw::default()
    } else {
        yaml_mapping(yaml)?
    };
    let mut warnings = Vec::new();
    let meta = Meta {
        name: text_field("name", raw.name, MAX_NAME_CHARS, &mut warnings),
        description: text_field(
            "description",
            raw.description,
            MAX_DESCRIPTION_CHARS,
            &mut warnings,
        ),
        disable_model_invocation: bool_field(
            "disable-model-invocation",
            raw.disable_model_invocation,
            &mut warnings,
        ),
        always_apply: bool_field("alwaysApply", raw.always_apply, &mut warnings),
        globs: match raw.globs {
            Some(v) => globs_field("globs", v, &mut warnings),
            None => raw
                .apply_to
                .and_then(|v| globs_field("applyTo", v, &mut warnings)),
        },
    };
    Ok(Parsed {
        meta,
        body,
        warnings,
    })
}

/// `Some((yaml, body))` when `text` opens with a `---` line; an unclosed block is an error.
fn split(text: &str) -> Result<Option<(&str, &str)>, String> {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok(None);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line
            .trim_end_matches(['\n', '\r'])
            .trim_end_matches([' ', '\t']);
        if bare == "---" || bare == "..." {
            return Ok(Some((&rest[..offset], &rest[offset + line.len()..])));
        }
        offset += line.len();
    }
    Err("the frontmatter opened with `---` is never closed".into())
}

/// The YAML as the fields we read; anything but a mapping (or YAML that does not parse within
/// the budgets) is an error.
fn yaml_mapping(yaml: &str) -> Result<Raw, String> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: 20_000,
            max_aliases: 64,
            max_anchors: 64,
            max_depth: 32,
            max_nodes: 10_000,
            max_total_scalar_bytes: MAX_FRONTMATTER_BYTES,
        },
        with_snippet: false,
        // YAML 1.2: only `true`/`false` are booleans (`name: n` is the name "n").
        strict_booleans: true,
    };
    serde_saphyr::from_str_with_options::<Raw>(yaml, options)
        .map_err(|e| format!("invalid YAML frontmatter: {}", one_line(&e.to_string())))
}

/// An error message on one short line (it ends up in a load state).
fn one_line(message: &str) -> String {
    let flat: String = message
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(200)
        .collect();
    flat
}

/// Printable text, cut to `max` characters (control characters become spaces).
pub fn clean(text: &str, max: usize) -> String {
    text.trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect()
}

fn text_field(
    key: &str,
    value: Option<Value>,
    max: usize,
    warnings: &mut Vec<String>,
) -> Option<String> {
    match value? {
        Value::String(s) => Some(clean(&s, max)).filter(|s| !s.is_empty()),
        Value::Null => None,
        // Plain YAML scalars (`name: 42`) read as text.
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => {
            warnings.push(format!("`{key}` is not text"));
            None
        }
    }
}

fn bool_field(key: &str, value: Option<Value>, warnings: &mut Vec<String>) -> Option<bool> {
    match value? {
        Value::Bool(b) => Some(b),
        Value::Null => None,
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => {
            warnings.push(format!("`{key}` is not true or false"));
            None
        }
    }
}

fn globs_field(key: &str, value: Value, warnings: &mut Vec<String>) -> Option<Vec<String>> {
    let globs: Vec<String> = match value {
        Value::Null => return None,
        Value::String(s) => s.split(',').map(|g| clean(g, 256)).collect(),
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) => out.push(clean(&s, 256)),
                    _ => {
                        warnings.push(format!("`{key}` has an entry that is not text"));
                        return None;
                    }
                }
            }
            out
        }
        _ => {
            warnings.push(format!("`{key}` is neither text nor a list"));
            return None;
        }
    };
    let globs: Vec<String> = globs
        .into_iter()
        .filter(|g| !g.is_empty())
        .take(MAX_GLOBS)
        .collect();
    (!globs.is_empty()).then_some(globs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_the_known_fields() {
        let text = "---\nname: review\ndescription: Reviews code.\ndisable-model-invocation: true\n\
                    alwaysApply: false\nglobs: \"**/*.rs, **/*.toml\"\nother: [1, 2]\n---\nBody here.\n";
        let p = parse(text).unwrap();
        assert_eq!(p.meta.name.as_deref(), Some("review"));
        assert_eq!(p.meta.description.as_deref(), Some("Reviews code."));
        assert_eq!(p.meta.disable_model_invocation, Some(true));
        assert_eq!(p.meta.always_apply, Some(false));
        assert_eq!(
            p.meta.globs,
            Some(vec!["**/*.rs".to_string(), "**/*.toml".to_string()])
        );
        assert_eq!(p.body, "Body here.\n");
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn no_frontmatter_is_all_body() {
        let p = parse("# Title\n\ntext").unwrap();
        assert_eq!(p.meta, Meta::default());
        assert_eq!(p.body, "# Title\n\ntext");
        let p = parse("---\n---\nbody").unwrap();
        assert_eq!(p.meta, Meta::default());
        assert_eq!(p.body, "body");
        let p = parse("\u{feff}---\r\nname: x\r\n---\r\nbody").unwrap();
        assert_eq!(p.meta.name.as_deref(), Some("x"));
        assert_eq!(p.body, "body");
    }

    #[test]
    fn lists_and_apply_to_are_globs() {
        let p = parse("---\nglobs:\n  - a/**\n  - b/*.md\n---\n").unwrap();
        assert_eq!(p.meta.globs, Some(vec!["a/**".into(), "b/*.md".into()]));
        let p = parse("---\napplyTo: '**/*.ts'\n---\n").unwrap();
        assert_eq!(p.meta.globs, Some(vec!["**/*.ts".into()]));
    }

    #[test]
    fn bad_yaml_is_an_error() {
        for text in [
            "---\nname: [unclosed\n---\nbody",
            "---\n- a\n- b\n---\n",
            "---\njust a scalar\n---\n",
            "---\nname: x\nbody without a closing line",
            "---\nkey: 'unterminated\n---\n",
            "---\na: &x [*x]\n---\n",
            "---\nname: a\nname: b\n---\n",
        ] {
            let e = parse(text).expect_err(text);
            assert!(!e.is_empty() && !e.contains('\n'), "{e:?}");
        }
    }

    #[test]
    fn wrong_types_are_warnings() {
        let p = parse("---\nname: {a: 1}\nalwaysApply: maybe\nglobs: 3\ndescription: 12\n---\n")
            .unwrap();
        assert_eq!(p.meta.name, None);
        assert_eq!(p.meta.always_apply, None);
        assert_eq!(p.meta.globs, None);
        assert_eq!(p.meta.description.as_deref(), Some("12"));
        assert_eq!(p.warnings.len(), 3, "{:?}", p.warnings);
    }

    #[test]
    fn alias_bombs_and_deep_nesting_stop_early() {
        let mut bomb = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..20 {
            let prev = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        bomb.push_str("---\n");
        let started = std::time::Instant::now();
        let _ = parse(&bomb);
        assert!(started.elapsed().as_secs() < 2);
        let deep = format!("---\nname: {}{}\n---\n", "[".repeat(500), "]".repeat(500));
        assert!(parse(&deep).is_err());
        let long = format!("---\nname: x\n{}---\n", "k: v\n".repeat(10_000));
        assert!(parse(&long).is_err());
    }

    #[test]
    fn names_are_cleaned_and_cut() {
        let long = "n".repeat(500);
        let text = format!("---\nname: \"a\\tb\\u0007{long}\"\n---\n");
        let p = parse(&text).unwrap();
        let name = p.meta.name.unwrap();
        assert_eq!(name.chars().count(), MAX_NAME_CHARS);
        assert!(!name.chars().any(char::is_control));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any text: never a panic; a result is a split of the input.
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
            if let Ok(p) = parse(&text) {
                prop_assert!(text.ends_with(p.body));
            }
        }

        /// YAML-ish frontmatter built from YAML's special characters: never a panic, and
        /// metadata within its bounds.
        #[test]
        fn yamlish_frontmatter_never_panics(
            yaml in "[-:&*!|>'\"\\[\\]{},#%@` a-z0-9\\n\\t]{0,300}",
            body in "[a-z \\n]{0,40}",
        ) {
            let text = format!("---\n{yaml}\n---\n{body}");
            if let Ok(p) = parse(&text) {
                prop_assert!(p.meta.name.as_ref().is_none_or(|n| n.chars().count() <= MAX_NAME_CHARS));
                prop_assert!(p.meta.globs.as_ref().is_none_or(|g| g.len() <= MAX_GLOBS && !g.is_empty()));
                prop_assert_eq!(p.body, body.as_str());
            }
        }

        /// Well-formed frontmatter round-trips its fields.
        #[test]
        fn well_formed_fields_round_trip(
            name in "[a-z][a-z0-9-]{0,30}",
            description in "[A-Za-z][A-Za-z0-9 .,]{0,80}",
            always in any::<bool>(),
        ) {
            let text = format!(
                "---\nname: {name}\ndescription: \"{description}\"\nalwaysApply: {always}\n---\nbody"
            );
            let p = parse(&text).unwrap();
            prop_assert_eq!(p.meta.name, Some(name));
            prop_assert_eq!(p.meta.description, Some(description.trim().to_string()).filter(|d| !d.is_empty()));
            prop_assert_eq!(p.meta.always_apply, Some(always));
            prop_assert_eq!(p.body, "body");
        }
    }
}
