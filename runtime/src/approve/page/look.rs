//! How the approvals page looks, and the text it shows made safe for HTML.

/// The page's look: readable on a phone, one card per waiting call, large buttons.
pub(super) const STYLE: &str = "<style>\
    body{font:16px/1.4 system-ui,sans-serif;margin:0 auto;max-width:40em;padding:1em;color:#222}\
    h1{font-size:1.4em}ul{list-style:none;padding:0}\
    li{border:1px solid #ccc;border-radius:8px;padding:.5em 1em;margin:.75em 0}\
    select,button{font-size:1em;padding:.4em .8em;margin:.2em 0}\
    button[value=approve]{background:#1a7f37;color:#fff;border:0;border-radius:6px}\
    button[value=deny]{background:#cf222e;color:#fff;border:0;border-radius:6px}\
    table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.2em .4em}\
    td.before pre{background:#ffebe9}td.after pre{background:#dafbe1}pre{white-space:pre-wrap;margin:0}\
    </style>";

pub(super) use crate::html::escape;
