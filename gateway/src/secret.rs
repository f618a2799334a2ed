//! Secrets named rather than written in a configuration: in a header's value, an environment
//! variable's value or an HTTP API's credential, `${NAME}` (or `${env:NAME}`) is the
//! gateway's environment variable `NAME`, and `${file:PATH}` the content of the file at
//! `PATH` (its trailing newline left out), read when the upstream starts.

/// `value` with each `${…}` in it replaced; an error names a variable that is not set or a
/// file that cannot be read.
pub(crate) fn expand(value: &str) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("`${{` without its `}}` in {value:?}"));
        };
        let name = &after[..end];
        out.push_str(&named(name)?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn named(name: &str) -> Result<String, String> {
    if let Some(path) = name.strip_prefix("file:") {
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("cannot read the secret file {path}: {err}"))?;
        return Ok(text.trim_end_matches(['\n', '\r']).to_owned());
    }
    let variable = name.strip_prefix("env:").unwrap_or(name);
    if variable.is_empty() {
        return Err("`${}` names nothing: write ${NAME} or ${file:PATH}".into());
    }
    std::env::var(variable).map_err(|_| {
        format!("the environment variable {variable} is not set (named as ${{{name}}})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_and_files_are_read_and_a_missing_one_is_named() {
        let path = std::env::temp_dir().join(format!("toolsmith-secret-{}", std::process::id()));
        std::fs::write(&path, "s3cret\n").unwrap();
        let home = std::env::var("HOME").unwrap_or_default();
        assert_eq!(expand("Bearer ${HOME}").unwrap(), format!("Bearer {home}"));
        assert_eq!(expand("${env:HOME}/x").unwrap(), format!("{home}/x"));
        let file = format!("Bearer ${{file:{}}}", path.display());
        assert_eq!(expand(&file).unwrap(), "Bearer s3cret");
        assert_eq!(expand("plain").unwrap(), "plain");
        let err = expand("${TOOLSMITH_NO_SUCH_VARIABLE}").unwrap_err();
        assert!(
            err.contains("TOOLSMITH_NO_SUCH_VARIABLE is not set"),
            "{err}"
        );
        assert!(
            expand("${file:/no/such/file}")
                .unwrap_err()
                .contains("/no/such/file")
        );
        assert!(expand("${oops").unwrap_err().contains("without its"));
        std::fs::remove_file(path).unwrap();
    }
}
