//! The page a server asks the user to open (URL elicitation): which host
//! the user is really sent to, as the browser's URL parser will see it, or
//! why the link is refused. A server is not trusted to name its page
//! honestly: `https://evil.com\@bank.com/` goes to evil.com in a browser,
//! and `https://bank.com@evil.com/` to evil.com too.

/// Why a page is not offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Not `http(s)://`.
    Scheme,
    /// A backslash, whitespace or a control character: browsers read such
    /// URLs differently from what they look like.
    Ambiguous,
    /// A user name or password before the host (`user@host`).
    Userinfo,
    /// No host, or one that is not a plain name, IPv4 or IPv6 address.
    Host,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refused::Scheme => "the page is not an http(s) address",
            Refused::Ambiguous => "the address holds characters that hide where it leads (a backslash, a space or a control character)",
            Refused::Userinfo => "the address carries a name before its host (name@host), which hides where it leads",
            Refused::Host => "the address names no readable host",
        })
    }
}

/// The host (lower case, internationalised names as their `xn--` form, the
/// port if one is given) that opening `url` reaches, or why it is refused.
pub fn page_host(url: &str) -> Result<String, Refused> {
    if url.chars().any(|c| c == '\\' || c.is_whitespace() || c.is_control()) {
        return Err(Refused::Ambiguous);
    }
    let (scheme, rest) = url.split_once("://").ok_or(Refused::Scheme)?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(Refused::Scheme);
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if authority.contains('@') {
        return Err(Refused::Userinfo);
    }
    let (host, port) = split_port(authority)?;
    let host = if host.starts_with('[') { ipv6(host)? } else { domain(host)? };
    Ok(match port {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

/// `host[:port]`, the port digits only.
fn split_port(authority: &str) -> Result<(&str, Option<&str>), Refused> {
    let colon = if authority.starts_with('[') { authority.find(']').map(|i| i + 1).filter(|&i| i < authority.len()) } else { authority.rfind(':') };
    match colon {
        Some(i) => {
            let port = authority.get(i + 1..).ok_or(Refused::Host)?;
            if authority.as_bytes().get(i) != Some(&b':') || port.parse::<u16>().is_err() || !port.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Refused::Host);
            }
            Ok((&authority[..i], Some(port)))
        }
        None => Ok((authority, None)),
    }
}

fn ipv6(host: &str) -> Result<String, Refused> {
    let inner = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).ok_or(Refused::Host)?;
    if inner.is_empty() || !inner.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') {
        return Err(Refused::Host);
    }
    Ok(format!("[{}]", inner.to_ascii_lowercase()))
}

/// A domain name label by label: ASCII letters, digits and hyphens in
/// lower case; other letters written as punycode (RFC 3492), as the
/// browser's address bar would.
fn domain(host: &str) -> Result<String, Refused> {
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() || host.len() > 253 {
        return Err(Refused::Host);
    }
    let mut labels = Vec::new();
    for label in host.split('.') {
        if label.is_empty() || label.contains(['%', '*', '_', '!', '$', '&', '\'', '(', ')', '+', ',', ';', '=', '<', '>', '"', '`', '{', '}', '|', '^']) {
            return Err(Refused::Host);
        }
        let lower = label.to_lowercase();
        labels.push(if lower.is_ascii() { lower } else { format!("xn--{}", punycode(&lower).ok_or(Refused::Host)?) });
    }
    Ok(labels.join("."))
}

/// RFC 3492 encoding of one label.
fn punycode(input: &str) -> Option<String> {
    const BASE: u32 = 36;
    let digit = |d: u32| -> char { if d < 26 { (b'a' + d as u8) as char } else { (b'0' + (d - 26) as u8) as char } };
    let adapt = |mut delta: u32, points: u32, first: bool| -> u32 {
        delta = if first { delta / 700 } else { delta / 2 };
        delta += delta / points;
        let mut k = 0;
        while delta > ((BASE - 1) * 26) / 2 {
            delta /= BASE - 1;
            k += BASE;
        }
        k + (BASE * delta) / (delta + 38)
    };
    let chars: Vec<u32> = input.chars().map(u32::from).collect();
    let mut out: String = input.chars().filter(char::is_ascii).collect();
    let basic = out.len() as u32;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias, mut handled) = (128u32, 0u32, 72u32, basic);
    while (handled as usize) < chars.len() {
        let m = chars.iter().copied().filter(|&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in &chars {
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = if k <= bias {
                        1
                    } else if k >= bias + 26 {
                        26
                    } else {
                        k - bias
                    };
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_a_browser_would_reach() {
        assert_eq!(page_host("https://auth.example.com/approve?x=1"), Ok("auth.example.com".into()));
        assert_eq!(page_host("HTTPS://Auth.Example.COM"), Ok("auth.example.com".into()));
        assert_eq!(page_host("http://127.0.0.1:8080/x"), Ok("127.0.0.1:8080".into()));
        assert_eq!(page_host("https://[2001:DB8::1]:443/"), Ok("[2001:db8::1]:443".into()));
        assert_eq!(page_host("https://example.com./"), Ok("example.com".into()));
        // Look-alikes show as what they are.
        assert_eq!(page_host("https://bücher.de/"), Ok("xn--bcher-kva.de".into()));
        assert_eq!(page_host("https://pаypal.com/"), Ok("xn--pypal-4ve.com".into()), "a Cyrillic а");
        assert_eq!(page_host("https://例え.テスト/"), Ok("xn--r8jz45g.xn--zckzah".into()));
    }

    #[test]
    fn links_that_hide_where_they_lead_are_refused() {
        assert_eq!(page_host("https://evil.com\\@bank.com/"), Err(Refused::Ambiguous));
        assert_eq!(page_host("https://bank.com@evil.com/"), Err(Refused::Userinfo));
        assert_eq!(page_host("https://user:pw@bank.com/"), Err(Refused::Userinfo));
        assert_eq!(page_host("https://bank.com\t.evil.com/"), Err(Refused::Ambiguous));
        assert_eq!(page_host("javascript:alert(1)//https://bank.com"), Err(Refused::Scheme));
        assert_eq!(page_host("data:text/html,x"), Err(Refused::Scheme));
        assert_eq!(page_host("//bank.com/"), Err(Refused::Scheme));
        assert_eq!(page_host("https:///path"), Err(Refused::Host));
        assert_eq!(page_host("https://%65vil.com/"), Err(Refused::Host));
        assert_eq!(page_host("https://bank.com:99999/"), Err(Refused::Host));
        assert_eq!(page_host("https://bank.com:/"), Err(Refused::Host));
        assert_eq!(page_host("https://[::1/"), Err(Refused::Host));
    }
}
