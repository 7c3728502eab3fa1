//! A small Rust lexer for the import graph: identifiers, `::`, single punctuation and string
//! literals, each with its line; comments, numbers, char literals and lifetimes are dropped.
//! It only needs to find module declarations, `use` trees, item names and `crate::`/`super::`
//! paths, so it does not tell keywords from identifiers or parse anything else.

/// One token and the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword (`r#type` is `type`).
    Ident(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
    /// A string literal's contents (escapes left as written).
    Str(String),
}

impl Token {
    /// The identifier, if this is one.
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            Kind::Ident(name) => Some(name),
            _ => None,
        }
    }

    pub fn is_ident(&self, name: &str) -> bool {
        self.ident() == Some(name)
    }

    pub fn is_punct(&self, c: char) -> bool {
        self.kind == Kind::Punct(c)
    }
}

/// Splits Rust source into tokens.
pub fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i, &mut line);
        } else if c == '"' {
            let (end, text) = quoted(&chars, i + 1, &mut line);
            out.push(token(Kind::Str(text), start_line));
            i = end;
        } else if let Some((end, text)) = prefixed_string(&chars, i, &mut line) {
            out.push(token(Kind::Str(text), start_line));
            i = end;
        } else if c == '\'' {
            i = skip_char_or_lifetime(&chars, i);
        } else if c == 'r' && next == Some('#') && chars.get(i + 2).is_some_and(|&c| ident_start(c))
        {
            let end = ident_end(&chars, i + 2);
            out.push(token(Kind::Ident(collect(&chars, i + 2, end)), line));
            i = end;
        } else if ident_start(c) {
            let end = ident_end(&chars, i);
            out.push(token(Kind::Ident(collect(&chars, i, end)), line));
            i = end;
        } else if c.is_ascii_digit() {
            i = ident_end(&chars, i);
            // A fraction (`1.5`), not a range (`1..2`) or a method call (`1.max(2)`).
            while chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                i = ident_end(&chars, i + 1);
            }
        } else if c == ':' && next == Some(':') {
            out.push(token(Kind::PathSep, line));
            i += 2;
        } else {
            out.push(token(Kind::Punct(c), line));
            i += 1;
        }
    }
    out
}

fn token(kind: Kind, line: usize) -> Token {
    Token { kind, line }
}

fn ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn ident_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && (chars[i] == '_' || chars[i].is_alphanumeric()) {
        i += 1;
    }
    i
}

fn collect(chars: &[char], from: usize, to: usize) -> String {
    chars[from..to].iter().collect()
}

/// `/* ... */`, nested; returns the index after it.
fn skip_block_comment(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            if chars[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
    }
    i
}

/// A `"`-string's body from `i` (after the quote); returns the index after the closing quote.
fn quoted(chars: &[char], mut i: usize, line: &mut usize) -> (usize, String) {
    let start = i;
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            i += 1;
        }
        if chars.get(i) == Some(&'\n') {
            *line += 1;
        }
        i += 1;
    }
    (i + 1, collect(chars, start, i.min(chars.len())))
}

/// `b"..."`, `c"..."`, `r"..."`, `r#"..."#`, `br#"..."#` and `b'x'` at `i`, if one starts there.
fn prefixed_string(chars: &[char], i: usize, line: &mut usize) -> Option<(usize, String)> {
    if i > 0 && (chars[i - 1] == '_' || chars[i - 1].is_alphanumeric()) {
        return None;
    }
    let mut j = i;
    if matches!(chars[j], 'b' | 'c') {
        j += 1;
        match chars.get(j) {
            Some('"') => return Some(quoted(chars, j + 1, line)),
            Some('\'') if chars[i] == 'b' => {
                return Some((skip_char_or_lifetime(chars, j), String::new()))
            }
            _ => {}
        }
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    let start = j + 1;
    let mut k = start;
    while k < chars.len() {
        if chars[k] == '"'
            && chars[k + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some((k + 1 + hashes, collect(chars, start, k)));
        }
        if chars[k] == '\n' {
            *line += 1;
        }
        k += 1;
    }
    Some((k, collect(chars, start, k)))
}

/// A char literal (`'x'`, `'\n'`, `'\u{1F600}'`) or a lifetime (`'a`) at `i`.
fn skip_char_or_lifetime(chars: &[char], i: usize) -> usize {
    match chars.get(i + 1) {
        Some('\\') => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        Some(_) if chars.get(i + 2) == Some(&'\'') => i + 3,
        _ => ident_end(chars, i + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(source: &str) -> Vec<String> {
        tokens(source)
            .into_iter()
            .filter_map(|t| t.ident().map(str::to_string))
            .collect()
    }

    #[test]
    fn comments_strings_chars_and_lifetimes_hide_nothing_else() {
        let source = "use a; // use b;\n/* use c; /* nested */ use d; */ fn f<'x>() -> &'x str {\n\
                      let q = '\\''; let s = \"use e;\"; let r = r#\"use \"f\";\"#; let c = 'g'; x::y }";
        assert_eq!(
            idents(source),
            [
                "use", "a", "fn", "f", "str", "let", "q", "let", "s", "let", "r", "let", "c", "x",
                "y"
            ]
        );
    }

    #[test]
    fn lines_count_across_comments_and_strings() {
        let source = "/* a\n b */ \"c\nd\" r#\"e\nf\"#\nmod g;";
        let g = tokens(source)
            .into_iter()
            .find(|t| t.is_ident("g"))
            .unwrap();
        assert_eq!(g.line, 5);
    }

    #[test]
    fn path_separators_and_raw_identifiers() {
        let kinds: Vec<Kind> = tokens("crate::r#type::X")
            .into_iter()
            .map(|t| t.kind)
            .collect();
        assert_eq!(
            kinds,
            [
                Kind::Ident("crate".into()),
                Kind::PathSep,
                Kind::Ident("type".into()),
                Kind::PathSep,
                Kind::Ident("X".into())
            ]
        );
    }
}
