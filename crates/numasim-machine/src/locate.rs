//! Error location for keys inside inline arrays of tables.
//!
//! `numasim_config::locate_key` understands `[[links]]` blocks; machine files may also write
//! `links = [ {a = "s0", b = "s1", type = "upi"}, ... ]`, where it can only find the `links = [`
//! line. [`refine`] finds the line of the i-th inline table (and of the field inside it) so every
//! error still points at the offending entry.

use numasim_config::{ConfigError, Source};

/// A validation error located by key path, refined for inline arrays.
pub(crate) fn error(source: &Source, key: impl Into<String>, message: impl Into<String>) -> ConfigError {
    refine(source, source.error(key, message))
}

/// Improves `err.line` when `err.key` points into an inline array of tables.
pub(crate) fn refine(source: &Source, mut err: ConfigError) -> ConfigError {
    if let Some(line) = inline_line(&source.text, &err.key) {
        err.line = Some(line);
    }
    err
}

/// Line of `array[idx].field` when `array` is written inline at top level.
pub(crate) fn inline_line(text: &str, key: &str) -> Option<usize> {
    let (array, rest) = key.split_once('[')?;
    if array.contains('.') {
        return None;
    }
    let (idx, rest) = rest.split_once(']')?;
    let idx: usize = idx.parse().ok()?;
    let field = rest.strip_prefix('.').map(|f| f.split(['.', '[']).next().unwrap_or(f));
    // Find `array = [` at top level (before any table header).
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[') {
            break;
        }
        if let Some(after) = t.strip_prefix(array) {
            let after = after.trim_start();
            if let Some(after) = after.strip_prefix('=') {
                if after.trim_start().starts_with('[') {
                    start = Some(offset + line.find('[').unwrap_or(0));
                    break;
                }
            }
        }
        offset += line.len();
    }
    let start = start?;
    let bytes = text.as_bytes();
    let line_of = |pos: usize| bytes[..pos].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut depth = 0usize;
    let mut tables_seen = 0usize;
    let mut in_target: Option<usize> = None; // byte position of the target table's '{'
    let mut i = start;
    let mut in_comment = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_comment {
            if c == b'\n' {
                in_comment = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'#' => in_comment = true,
            b'"' | b'\'' => {
                // Skip a (single-line) string.
                i += 1;
                while i < bytes.len() && bytes[i] != c && bytes[i] != b'\n' {
                    if c == b'"' && bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if c == b'{' && depth == 2 {
                    if tables_seen == idx {
                        in_target = Some(i);
                    }
                    tables_seen += 1;
                }
            }
            b']' | b'}' => {
                if depth == 2 && in_target.is_some() {
                    return in_target.map(line_of);
                }
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return None;
                }
            }
            _ if depth == 2 && in_target.is_some() => {
                if let Some(field) = field {
                    let word_start = i == 0 || !is_key_char(bytes[i - 1]);
                    if word_start && text[i..].starts_with(field) {
                        let after = text[i + field.len()..].trim_start();
                        let ends_word = text[i + field.len()..]
                            .chars()
                            .next()
                            .is_none_or(|ch| !is_key_char(ch as u8));
                        if ends_word && after.starts_with('=') {
                            return Some(line_of(i));
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    in_target.map(line_of)
}

fn is_key_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_inline_entries_and_fields() {
        let text = "name = \"x\"\nlinks = [\n  { a = \"s0\", b = \"s1\", type = \"upi\" },\n  { a = \"s1\",\n    b = \"s2\", latency_ns = 0 },\n]\n[[sockets]]\nname = \"s0\"\n";
        assert_eq!(inline_line(text, "links[0]"), Some(3));
        assert_eq!(inline_line(text, "links[1].a"), Some(4));
        assert_eq!(inline_line(text, "links[1].latency_ns"), Some(5));
        assert_eq!(inline_line(text, "links[1].bandwidth_gbps"), Some(4));
        assert_eq!(inline_line(text, "links[2]"), None);
        assert_eq!(inline_line(text, "sockets[0].name"), None);
    }
}
