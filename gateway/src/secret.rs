//! Secrets named rather than written in a configuration: in a header's value, an environment
//! variable's value or an HTTP API's credential, `${NAME}` (or `${env:NAME}`) is the
//! gateway's environment variable `NAME`, and `${file:PATH}` the content of the file at
//! `PATH` (its trailing newline left out), read when the upstream starts.

/// `value` with each `${…}` in it replaced; an error names a variable that is not set or a
/// file that cannot be read.
pub(crate) fn expand(value: &str) -> Result<String, String> {
    expand_with(value, &|_| None)
}

/// [`expand`], where `${caller.NAME}` is what `caller` says of the caller of a session of
/// its own (its id, subject, email, token; or why it cannot be put in): put in as it is,
/// never read again for `${…}` (a caller's email cannot name a file). Without a caller it
/// is an error that says so.
pub(crate) fn expand_with(
    value: &str,
    caller: &dyn Fn(&str) -> Option<Result<String, String>>,
) -> Result<String, String> {
    replaced(value, |name| match name.strip_prefix("caller.") {
        Some(what) => caller(what).ok_or_else(|| match what {
            "id" | "subject" | "email" | "token" => format!(
                "`${{{name}}}` names the caller: only an upstream started per caller (`per_caller = true`) has one"
            ),
            _ => format!("`${{{name}}}` is not known: write ${{caller.id}}, ${{caller.subject}}, ${{caller.email}} or ${{caller.token}}"),
        })?,
        None => named(name),
    })
    .map_err(|unclosed| unclosed.unwrap_or_else(|| format!("`${{` without its `}}` in {value:?}")))
}

/// `value` with each `${file:PATH}` whose `PATH` is relative taken from `dir` (a
/// configuration file's folder); the rest as it is. A value with a `${` without its `}` is
/// left as it is: expanding it is the error that says so.
pub(crate) fn rooted(value: &str, dir: &std::path::Path) -> String {
    let rooted = replaced(value, |name| {
        Ok(match name.strip_prefix("file:") {
            Some(path) if std::path::Path::new(path).is_relative() => {
                format!("${{file:{}}}", dir.join(path).display())
            }
            _ => format!("${{{name}}}"),
        })
    });
    rooted.unwrap_or_else(|_| value.to_owned())
}

/// `value` with each `${NAME}` in it replaced by what `each` makes of `NAME`; `each`'s
/// error, or `Err(None)` for a `${` without its `}`. What is put in is never read again.
fn replaced(
    value: &str,
    mut each: impl FnMut(&str) -> Result<String, String>,
) -> Result<String, Option<String>> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or(None)?;
        out.push_str(&each(&after[..end]).map_err(Some)?);
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

    #[test]
    fn a_relative_file_is_taken_from_the_folder_given() {
        let dir = std::path::Path::new("/etc/gateway");
        assert_eq!(
            rooted(
                "Bearer ${file:keys/api} ${file:/abs} ${HOME} ${caller.id}",
                dir
            ),
            "Bearer ${file:/etc/gateway/keys/api} ${file:/abs} ${HOME} ${caller.id}"
        );
        assert_eq!(rooted("a ${oops", dir), "a ${oops");
    }

    #[test]
    fn the_caller_is_put_in_as_it_is_and_only_where_there_is_one() {
        // A caller whose email names a file: put in as text, never read.
        let caller = |what: &str| match what {
            "subject" => Some(Ok("alice".to_owned())),
            "email" => Some(Ok("${file:/etc/passwd}".to_owned())),
            "token" => Some(Err("refused".to_owned())),
            _ => None,
        };
        let home = expand_with("/home/${caller.subject}/${caller.email}", &caller).unwrap();
        assert_eq!(home, "/home/alice/${file:/etc/passwd}");
        let err = expand("/home/${caller.subject}").unwrap_err();
        assert!(err.contains("per_caller = true"), "{err}");
        let err = expand_with("${caller.shoe_size}", &caller).unwrap_err();
        assert!(err.contains("${caller.id}"), "{err}");
        assert_eq!(
            expand_with("${caller.token}", &caller).unwrap_err(),
            "refused"
        );
    }
}
