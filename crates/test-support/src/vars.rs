//! Environment variables for code that reads them through a lookup (the
//! `from_lookup(impl Fn(&str) -> Option<String>)` constructors): a test's
//! name/value pairs as that lookup, so no test touches the process
//! environment.

/// A lookup over `pairs`: the value of the first pair with that name;
/// other names are unset.
pub fn lookup<K: AsRef<str>, V: AsRef<str>>(
    pairs: &[(K, V)],
) -> impl Fn(&str) -> Option<String> + '_ {
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k.as_ref() == name)
            .map(|(_, v)| v.as_ref().to_string())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_pair_of_a_name_is_its_value() {
        let pairs = [("A", "1"), ("B", "2"), ("A", "3")];
        let get = super::lookup(&pairs);
        assert_eq!(get("A").as_deref(), Some("1"));
        assert_eq!(get("B").as_deref(), Some("2"));
        assert_eq!(get("C"), None);
        let owned = vec![("A".to_string(), String::new())];
        assert_eq!(super::lookup(&owned)("A").as_deref(), Some(""));
    }
}
