//! Arithmetic expressions: a recursive-descent parser that evaluates as it
//! goes (no `eval`, no intermediate tree).
//!
//! ```text
//! expr    = term (("+" | "-") term)*
//! term    = unary (("*" | "/" | "%") unary)*
//! unary   = ("-" | "+") unary | power
//! power   = primary (("^" | "**") unary)?      right-associative; -2^2 = -4
//! primary = number | constant | function "(" expr ("," expr)* ")" | "(" expr ")"
//! ```
//!
//! `×`, `÷` and `−` (the typographic minus) are read as `*`, `/` and `-`,
//! since models copy them from prose. Every intermediate result must be a
//! finite number, so an overflow is reported where it happens rather than
//! as a meaningless `inf` at the end.

/// Why an expression could not be evaluated, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct CalcError {
    /// 0-based character index.
    pub position: usize,
    pub message: String,
}

impl std::fmt::Display for CalcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Counted from 1, as people (and models) count.
        write!(f, "at character {}: {}", self.position + 1, self.message)
    }
}

impl std::error::Error for CalcError {}

/// The functions, as the model is told about them.
pub const FUNCTIONS: [&str; 9] = ["sqrt", "sin", "cos", "tan", "log", "ln", "abs", "min", "max"];

/// Nesting deeper than this (parentheses, unary signs, powers) is an error
/// rather than a risk to the stack.
const MAX_DEPTH: usize = 200;

type Calc = Result<f64, CalcError>;

/// Evaluates `expr`.
pub fn evaluate(expr: &str) -> Calc {
    let mut p = Parser { chars: expr.chars().collect(), pos: 0, depth: 0 };
    if p.peek().is_none() {
        return Err(CalcError { position: 0, message: "the expression is empty".into() });
    }
    let x = p.expr()?;
    match p.peek() {
        None => Ok(x),
        Some(')') => Err(p.error("unbalanced `)`: there is no `(` for it to close")),
        Some(c) => Err(p.error(&format!("expected an operator (+ - * / % ^) or the end, found `{c}`"))),
    }
}

/// Integers without `.0`; otherwise up to 12 significant digits, trailing
/// zeros trimmed; very large or very small magnitudes in `e` notation.
pub fn format_number(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        // Also -0.
        return "0".into();
    }
    let magnitude = x.abs();
    if x.fract() == 0.0 && magnitude < 1e15 {
        return format!("{x:.0}");
    }
    if !(1e-6..1e15).contains(&magnitude) {
        // `1.23456789012e-7`: 12 significant digits, then trimmed.
        let s = format!("{x:.11e}");
        return match s.split_once('e') {
            Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa)),
            None => s,
        };
    }
    let decimals = (11 - magnitude.log10().floor() as i32).clamp(0, 17) as usize;
    let s = trim_zeros(&format!("{x:.decimals$}")).to_owned();
    // Rounding can leave `-0` (e.g. -1e-13 is caught above, but be sure).
    if s == "-0" { "0".into() } else { s }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn error(&self, message: &str) -> CalcError {
        CalcError { position: self.pos, message: message.into() }
    }

    fn skip_ws(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    /// The next character that is not white space (the position moves to
    /// it).
    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.chars.get(self.pos).copied()
    }

    /// Consumes the next character if it is one of `options`, returning it
    /// (normalised to ASCII) and its position.
    fn eat(&mut self, options: &[char]) -> Option<(char, usize)> {
        let c = self.peek()?;
        if !options.contains(&c) {
            return None;
        }
        let at = self.pos;
        self.pos += 1;
        let c = match c {
            '×' => '*',
            '÷' => '/',
            '−' => '-',
            c => c,
        };
        Some((c, at))
    }

    /// `^`, or Python's `**`, which models write too.
    fn eat_power(&mut self) -> Option<usize> {
        if let Some((_, at)) = self.eat(&['^']) {
            return Some(at);
        }
        if self.peek() == Some('*') && self.chars.get(self.pos + 1) == Some(&'*') {
            self.pos += 2;
            return Some(self.pos - 2);
        }
        None
    }

    /// Guards recursion: every rule that can nest goes through here.
    fn nested(&mut self, rule: fn(&mut Self) -> Calc) -> Calc {
        if self.depth >= MAX_DEPTH {
            return Err(self.error("the expression is nested too deeply"));
        }
        self.depth += 1;
        let x = rule(self);
        self.depth -= 1;
        x
    }

    fn expr(&mut self) -> Calc {
        let mut x = self.term()?;
        while let Some((op, at)) = self.eat(&['+', '-', '−']) {
            let y = self.term()?;
            x = finite(if op == '+' { x + y } else { x - y }, at)?;
        }
        Ok(x)
    }

    fn term(&mut self) -> Calc {
        let mut x = self.nested(Self::unary)?;
        loop {
            if self.peek() == Some('*') && self.chars.get(self.pos + 1) == Some(&'*') {
                // `**` is a power, handled below `unary`.
                break;
            }
            let Some((op, at)) = self.eat(&['*', '×', '/', '÷', '%']) else { break };
            let y = self.nested(Self::unary)?;
            x = match op {
                '*' => finite(x * y, at)?,
                _ if y == 0.0 => return Err(CalcError { position: at, message: "division by zero".into() }),
                '/' => finite(x / y, at)?,
                _ => finite(x % y, at)?,
            };
        }
        Ok(x)
    }

    fn unary(&mut self) -> Calc {
        if self.eat(&['-', '−']).is_some() {
            return Ok(-self.nested(Self::unary)?);
        }
        if self.eat(&['+']).is_some() {
            return self.nested(Self::unary);
        }
        self.power()
    }

    fn power(&mut self) -> Calc {
        let base = self.primary()?;
        let Some(at) = self.eat_power() else { return Ok(base) };
        // The exponent is a `unary`, so `2^-1` works and `2^3^2` is 2^(3^2).
        let exponent = self.nested(Self::unary)?;
        if base == 0.0 && exponent < 0.0 {
            return Err(CalcError { position: at, message: "division by zero (0 to a negative power)".into() });
        }
        if base < 0.0 && exponent.fract() != 0.0 {
            return Err(CalcError { position: at, message: "a negative number to a fractional power is not a real number".into() });
        }
        finite(base.powf(exponent), at)
    }

    fn primary(&mut self) -> Calc {
        let Some(c) = self.peek() else { return Err(self.error("expected a number or `(`, found the end")) };
        if c == '(' {
            let open = self.pos;
            self.pos += 1;
            let x = self.nested(Self::expr)?;
            if self.eat(&[')']).is_none() {
                return Err(self.error(&format!("expected `)` to close the `(` at character {}", open + 1)));
            }
            return Ok(x);
        }
        if c.is_ascii_digit() || c == '.' {
            return self.number();
        }
        if c.is_alphabetic() {
            return self.name();
        }
        Err(self.error(&format!("expected a number or `(`, found `{c}`")))
    }

    fn number(&mut self) -> Calc {
        let start = self.pos;
        let digits = |p: &mut Self| {
            while p.chars.get(p.pos).is_some_and(char::is_ascii_digit) {
                p.pos += 1;
            }
        };
        digits(self);
        if self.chars.get(self.pos) == Some(&'.') {
            self.pos += 1;
            digits(self);
        }
        // An exponent only when digits follow: `2e` is 2 then the name `e`.
        if self.chars.get(self.pos).is_some_and(|c| *c == 'e' || *c == 'E') {
            let sign = usize::from(self.chars.get(self.pos + 1).is_some_and(|c| *c == '+' || *c == '-'));
            if self.chars.get(self.pos + 1 + sign).is_some_and(char::is_ascii_digit) {
                self.pos += 1 + sign;
                digits(self);
            }
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        if self.chars.get(self.pos) == Some(&'.') {
            return Err(CalcError { position: self.pos, message: format!("`{text}.` is not a number (two decimal points)") });
        }
        let x = text.parse::<f64>().map_err(|_| CalcError { position: start, message: format!("`{text}` is not a number") })?;
        if !x.is_finite() {
            return Err(CalcError { position: start, message: format!("`{text}` is too large") });
        }
        Ok(x)
    }

    fn name(&mut self) -> Calc {
        let start = self.pos;
        while self.chars.get(self.pos).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().collect::<String>().to_lowercase();
        match name.as_str() {
            "pi" | "π" => return Ok(std::f64::consts::PI),
            "e" => return Ok(std::f64::consts::E),
            _ => {}
        }
        if !FUNCTIONS.contains(&name.as_str()) {
            return Err(CalcError { position: start, message: format!("unknown name `{name}` (functions: {}; constants: pi, e)", FUNCTIONS.join(" ")) });
        }
        if self.eat(&['(']).is_none() {
            return Err(self.error(&format!("expected `(` after `{name}`")));
        }
        let mut args = vec![self.nested(Self::expr)?];
        while self.eat(&[',']).is_some() {
            args.push(self.nested(Self::expr)?);
        }
        if self.eat(&[')']).is_none() {
            return Err(self.error(&format!("expected `,` or `)` to close `{name}(`")));
        }
        let fail = |message: String| Err(CalcError { position: start, message });
        let x = match (name.as_str(), args.as_slice()) {
            ("min", _) => args.iter().copied().fold(f64::INFINITY, f64::min),
            ("max", _) => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            (_, [x]) => *x,
            (_, _) => return fail(format!("`{name}` takes one argument, got {}", args.len())),
        };
        let y = match name.as_str() {
            "sqrt" if x < 0.0 => {
                return fail(format!("the square root of a negative number ({}) is not a real number", format_number(x)));
            }
            "sqrt" => x.sqrt(),
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "log" | "ln" if x <= 0.0 => {
                return fail(format!("the logarithm of {} is undefined (it needs a positive number)", format_number(x)));
            }
            "log" => x.log10(),
            "ln" => x.ln(),
            "abs" => x.abs(),
            _ => x,
        };
        finite(y, start)
    }
}

/// The result of an operation at `at`, if it is a finite number.
fn finite(x: f64, at: usize) -> Calc {
    if x.is_finite() {
        Ok(x)
    } else if x.is_nan() {
        Err(CalcError { position: at, message: "the result is undefined (not a number)".into() })
    } else {
        Err(CalcError { position: at, message: "the result is too large (overflow)".into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_functions() {
        let cases = [
            ("2 + 3 * 4", "14"),
            ("(2 + 3) * 4", "20"),
            ("2 - 3 - 4", "-5"),
            ("100 / 10 / 5", "2"),
            ("-2^2", "-4"),
            ("(-2)^2", "4"),
            ("2^3^2", "512"),
            ("2^-1", "0.5"),
            ("2**10", "1024"),
            ("2 ** 3 ** 2", "512"),
            ("-2**2", "-4"),
            ("3 * 2**2", "12"),
            ("-(3 - 5)", "2"),
            ("--3", "3"),
            ("+-+3", "-3"),
            ("2*-3", "-6"),
            ("10 % 4", "2"),
            ("-7 % 3", "-1"),
            ("7 / 2", "3.5"),
            ("sqrt(16) + abs(-3)", "7"),
            ("max(1, 5, 3) - min(4, 2)", "3"),
            ("min(7)", "7"),
            ("max(-1, -2)", "-1"),
            ("log(1000) + ln(e)", "4"),
            ("2 * pi", "6.28318530718"),
            ("PI", "3.14159265359"),
            ("π", "3.14159265359"),
            ("e", "2.71828182846"),
            ("sin(0) + cos(0)", "1"),
            ("sin(pi / 2)", "1"),
            ("tan(pi / 4)", "1"),
            ("SQRT(2)", "1.41421356237"),
            ("1e3 + 2.5E-1", "1000.25"),
            ("1e+3", "1000"),
            (".5 + 1.", "1.5"),
            ("3 × 4 ÷ 2", "6"),
            ("5 − 8", "-3"),
            ("23 * 17", "391"),
            ("0.1 + 0.2", "0.3"),
            ("1/3", "0.333333333333"),
            ("2/3", "0.666666666667"),
            ("  \t( 1 +\n 2 )  ", "3"),
            ("((((((1))))))", "1"),
            ("1e300 * 1e-300", "1"),
        ];
        for (expr, want) in cases {
            assert_eq!(evaluate(expr).map(format_number), Ok(want.to_owned()), "{expr}");
        }
    }

    #[test]
    fn errors_name_the_position() {
        let cases = [
            ("", "at character 1: the expression is empty"),
            ("   ", "at character 1: the expression is empty"),
            ("2 +", "at character 4: expected a number or `(`, found the end"),
            ("(1 + 2", "at character 7: expected `)` to close the `(` at character 1"),
            ("1 + 2)", "at character 6: unbalanced `)`: there is no `(` for it to close"),
            ("()", "at character 2: expected a number or `(`, found `)`"),
            ("1 / 0", "at character 3: division by zero"),
            ("5 % (2 - 2)", "at character 3: division by zero"),
            ("0^-1", "at character 2: division by zero (0 to a negative power)"),
            ("(-8)^(1/3)", "at character 5: a negative number to a fractional power is not a real number"),
            ("foo(2)", "at character 1: unknown name `foo` (functions: sqrt sin cos tan log ln abs min max; constants: pi, e)"),
            ("2 * x", "at character 5: unknown name `x` (functions: sqrt sin cos tan log ln abs min max; constants: pi, e)"),
            ("sqrt 4", "at character 6: expected `(` after `sqrt`"),
            ("sqrt(-1)", "at character 1: the square root of a negative number (-1) is not a real number"),
            ("1 + log(0)", "at character 5: the logarithm of 0 is undefined (it needs a positive number)"),
            ("ln(-2)", "at character 1: the logarithm of -2 is undefined (it needs a positive number)"),
            ("sin(1, 2)", "at character 1: `sin` takes one argument, got 2"),
            ("max(1, 2", "at character 9: expected `,` or `)` to close `max(`"),
            ("2 3", "at character 3: expected an operator (+ - * / % ^) or the end, found `3`"),
            ("2(3)", "at character 2: expected an operator (+ - * / % ^) or the end, found `(`"),
            ("2 * $", "at character 5: expected a number or `(`, found `$`"),
            ("1.2.3", "at character 4: `1.2.` is not a number (two decimal points)"),
            (".", "at character 1: `.` is not a number"),
            ("10^400", "at character 3: the result is too large (overflow)"),
            ("1e308 * 10", "at character 7: the result is too large (overflow)"),
            ("1e999", "at character 1: `1e999` is too large"),
            ("3 *** 2", "at character 5: expected a number or `(`, found `*`"),
            ("2e", "at character 2: expected an operator (+ - * / % ^) or the end, found `e`"),
        ];
        for (expr, want) in cases {
            assert_eq!(evaluate(expr).map_err(|e| e.to_string()), Err(want.to_owned()), "{expr}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        for deep in ["(".repeat(100_000), "-".repeat(100_000) + "1", "2^".repeat(100_000) + "1", "sqrt(".repeat(100_000)] {
            let e = evaluate(&deep).unwrap_err();
            assert_eq!(e.message, "the expression is nested too deeply");
        }
        let ok = "(".repeat(60) + "1" + &")".repeat(60);
        assert_eq!(evaluate(&ok), Ok(1.0));
    }

    #[test]
    fn numbers_are_formatted_for_reading() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (42.0, "42"),
            (-42.0, "-42"),
            (1e14, "100000000000000"),
            (1e15, "1e15"),
            (1.5e20, "1.5e20"),
            (-2.5e-7, "-2.5e-7"),
            (1.0 / 3.0 * 1e-8, "3.33333333333e-9"),
            (0.000123, "0.000123"),
            (std::f64::consts::PI, "3.14159265359"),
            (123456.789, "123456.789"),
            (0.1 + 0.2, "0.3"),
            (999999.9999999999, "1000000"),
            (f64::INFINITY, "inf"),
        ];
        for (x, want) in cases {
            assert_eq!(format_number(x), want, "{x}");
        }
    }

    proptest::proptest! {
        #[test]
        fn garbage_never_panics(chars in proptest::collection::vec(proptest::sample::select(&['1', '2', '.', 'e', '+', '-', '*', '/', '%', '^', '(', ')', ',', ' ', 's', 'q', 'r', 't', 'π', '×', 'x'][..]), 0..20)) {
            let s: String = chars.into_iter().collect();
            match evaluate(&s) {
                Ok(x) => proptest::prop_assert!(x.is_finite(), "{s:?}"),
                Err(e) => proptest::prop_assert!(e.position <= s.chars().count(), "{s:?}: {e}"),
            }
        }
    }
}
