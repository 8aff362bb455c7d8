//! Binary detection and MIME guesses: NUL in the first 8 KiB means binary; the MIME
//! type comes from magic bytes, then the extension.

/// How much of a file the binary test looks at.
pub const SNIFF_BYTES: usize = 8192;

pub fn is_binary(head: &[u8]) -> bool {
    memchr::memchr(0, &head[..head.len().min(SNIFF_BYTES)]).is_some()
}

/// A MIME type from magic bytes, then the file name's extension.
pub fn mime(head: &[u8], name: &str, binary: bool) -> &'static str {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xFF\xD8\xFF", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"%PDF-", "application/pdf"),
        (b"PK\x03\x04", "application/zip"),
        (b"\x1F\x8B", "application/gzip"),
        (b"\x7FELF", "application/x-executable"),
        (b"BZh", "application/x-bzip2"),
        (b"\xFD7zXZ\x00", "application/x-xz"),
        (b"\x28\xB5\x2F\xFD", "application/zstd"),
        (b"SQLite format 3\x00", "application/vnd.sqlite3"),
        (b"\x00asm", "application/wasm"),
        (b"RIFF", "application/octet-stream"),
    ];
    for (magic, m) in MAGIC {
        if head.starts_with(magic) {
            return m;
        }
    }
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let by_ext = match ext.as_str() {
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "js" | "mjs" | "cjs" => "text/javascript",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "wasm" => "application/wasm",
        _ => "",
    };
    if !by_ext.is_empty() {
        return by_ext;
    }
    if binary {
        "application/octet-stream"
    } else {
        "text/plain"
    }
}
