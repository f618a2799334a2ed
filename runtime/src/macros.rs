//! Feature gates kept in one place, as tokio's `cfg_*!` macros keep them: the items inside
//! exist with the feature, and say so in the docs.

/// Items that exist with the `http` feature.
macro_rules! cfg_http {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "http")]
            #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
            $item
        )*
    };
}
