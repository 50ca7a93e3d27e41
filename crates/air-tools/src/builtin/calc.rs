//! Arithmetic expressions: a recursive-descent parser and evaluator.
//!
//! ```text
//! expr    = term (("+" | "-") term)*
//! term    = unary (("*" | "/" | "%") unary)*
//! unary   = ("-" | "+") unary | power
//! power   = primary ("^" unary)?        (right-associative; -2^2 = -4)
//! primary = number | name | name "(" expr ("," expr)* ")" | "(" expr ")"
//! ```

/// Why an expression could not be evaluated, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct CalcError {
    /// 0-based character index.
    pub position: usize,
    pub message: String,
}

impl std::fmt::Display for CalcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at character {}: {}", self.position + 1, self.message)
    }
}

impl std::error::Error for CalcError {}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

type R = Result<f64, CalcError>;

/// Evaluates `expr`.
pub fn evaluate(expr: &str) -> R {
    let mut p = Parser { chars: expr.chars().collect(), pos: 0, depth: 0 };
    p.skip_ws();
    if p.at_end() {
        return Err(p.error("the expression is empty"));
    }
    let x = p.expr()?;
    p.skip_ws();
    if !p.at_end() {
        return Err(p.error(&format!("unexpected `{}`", p.chars[p.pos])));
    }
    if !x.is_finite() {
        return Err(CalcError { position: 0, message: "the result is not a finite number".into() });
    }
    Ok(x)
}

/// Integers without `.0`; otherwise up to 12 significant digits.
pub fn format_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let digits = (11 - x.abs().log10().floor() as i32).clamp(0, 15) as usize;
    let s = format!("{x:.digits$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    if s == "-0" { "0".into() } else { s }
}

impl Parser {
    fn error(&self, message: &str) -> CalcError {
        CalcError { position: self.pos, message: message.into() }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }

    fn skip_ws(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> R {
        self.depth += 1;
        if self.depth > 200 {
            return Err(self.error("the expression is nested too deeply"));
        }
        let mut x = self.term()?;
        loop {
            if self.eat('+') {
                x += self.term()?;
            } else if self.eat('-') || self.eat('−') {
                x -= self.term()?;
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(x)
    }

    fn term(&mut self) -> R {
        let mut x = self.unary()?;
        loop {
            if self.eat('*') || self.eat('×') {
                x *= self.unary()?;
            } else if self.peek() == Some('/') || self.peek() == Some('÷') || self.peek() == Some('%') {
                let at = self.pos;
                let op = self.chars[self.pos];
                self.pos += 1;
                let y = self.unary()?;
                if y == 0.0 {
                    return Err(CalcError { position: at, message: "division by zero".into() });
                }
                x = if op == '%' { x % y } else { x / y };
            } else {
                break;
            }
        }
        Ok(x)
    }

    fn unary(&mut self) -> R {
        if self.eat('-') || self.eat('−') {
            return Ok(-self.unary()?);
        }
        if self.eat('+') {
            return self.unary();
        }
        self.power()
    }

    fn power(&mut self) -> R {
        let base = self.primary()?;
        if self.eat('^') {
            let exp = self.unary()?;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    fn primary(&mut self) -> R {
        let Some(c) = self.peek() else { return Err(self.error("expected a number or `(`, found the end")) };
        if c == '(' {
            self.pos += 1;
            let x = self.expr()?;
            if !self.eat(')') {
                return Err(self.error("expected `)`"));
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

    fn number(&mut self) -> R {
        let start = self.pos;
        while self.chars.get(self.pos).is_some_and(|c| c.is_ascii_digit() || *c == '.') {
            self.pos += 1;
        }
        if self.chars.get(self.pos).is_some_and(|c| *c == 'e' || *c == 'E')
            && self.chars.get(self.pos + 1).is_some_and(|c| c.is_ascii_digit() || *c == '-' || *c == '+')
        {
            self.pos += 2;
            while self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
                self.pos += 1;
            }
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        text.parse::<f64>().map_err(|_| CalcError { position: start, message: format!("`{text}` is not a number") })
    }

    fn name(&mut self) -> R {
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
        let known = ["sqrt", "sin", "cos", "tan", "log", "ln", "abs", "min", "max"];
        if !known.contains(&name.as_str()) {
            return Err(CalcError {
                position: start,
                message: format!("unknown name `{name}` (functions: {}; constants: pi, e)", known.join(" ")),
            });
        }
        if !self.eat('(') {
            return Err(self.error(&format!("expected `(` after `{name}`")));
        }
        let mut args = vec![self.expr()?];
        while self.eat(',') {
            args.push(self.expr()?);
        }
        if !self.eat(')') {
            return Err(self.error("expected `)` or `,`"));
        }
        let one = |args: &[f64]| -> Result<f64, CalcError> {
            match args {
                [x] => Ok(*x),
                _ => Err(CalcError { position: start, message: format!("`{name}` takes one argument, got {}", args.len()) }),
            }
        };
        let x = match name.as_str() {
            "sqrt" => {
                let x = one(&args)?;
                if x < 0.0 {
                    return Err(CalcError { position: start, message: "square root of a negative number".into() });
                }
                x.sqrt()
            }
            "sin" => one(&args)?.sin(),
            "cos" => one(&args)?.cos(),
            "tan" => one(&args)?.tan(),
            "log" | "ln" => {
                let x = one(&args)?;
                if x <= 0.0 {
                    return Err(CalcError { position: start, message: format!("`{name}` of a number that is not positive") });
                }
                if name == "log" { x.log10() } else { x.ln() }
            }
            "abs" => one(&args)?.abs(),
            "min" => args.iter().copied().fold(f64::INFINITY, f64::min),
            _ => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        };
        Ok(x)
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
            ("-2^2", "-4"),
            ("2^3^2", "512"),
            ("-(3 - 5)", "2"),
            ("10 % 4", "2"),
            ("7 / 2", "3.5"),
            ("sqrt(16) + abs(-3)", "7"),
            ("max(1, 5, 3) - min(4, 2)", "3"),
            ("log(1000) + ln(e)", "4"),
            ("2 * pi", "6.28318530718"),
            ("sin(0) + cos(0)", "1"),
            ("1e3 + 2.5E-1", "1000.25"),
            ("3 × 4 ÷ 2", "6"),
            ("23 * 17", "391"),
            ("0.1 + 0.2", "0.3"),
            ("1/3", "0.333333333333"),
        ];
        for (expr, want) in cases {
            assert_eq!(evaluate(expr).map(format_number), Ok(want.to_owned()), "{expr}");
        }
    }

    #[test]
    fn errors_name_the_position() {
        let cases = [
            ("", "at character 1: the expression is empty"),
            ("2 +", "at character 4: expected a number or `(`, found the end"),
            ("(1 + 2", "at character 7: expected `)`"),
            ("1 / 0", "at character 3: division by zero"),
            ("foo(2)", "at character 1: unknown name `foo` (functions: sqrt sin cos tan log ln abs min max; constants: pi, e)"),
            ("sqrt(-1)", "at character 1: square root of a negative number"),
            ("2 3", "at character 3: unexpected `3`"),
            ("2 * $", "at character 5: expected a number or `(`, found `$`"),
            ("10^400", "at character 1: the result is not a finite number"),
        ];
        for (expr, want) in cases {
            assert_eq!(evaluate(expr).map_err(|e| e.to_string()), Err(want.to_owned()), "{expr}");
        }
        assert!(evaluate(&"(".repeat(10_000)).is_err(), "deep nesting is an error, not a stack overflow");
    }
}
