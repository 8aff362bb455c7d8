//! Whether a new name is an identifier of a grammar's language: letters,
//! digits and `_` (not first a digit), and no keyword.

use super::grammar::Grammar;

/// Whether `new` can name a symbol in the language of grammar `g`: an
/// identifier (letters, digits, `_`, not first a digit) that is no keyword.
pub fn valid_identifier(g: Grammar, new: &str) -> bool {
    let mut chars = new.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_');
    if !first_ok || !new.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return false;
    }
    let keywords: &str = match g {
        Grammar::Python => {
            "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield"
        }
        Grammar::Rust => {
            "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while _"
        }
        Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => {
            "break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with let yield await enum"
        }
        Grammar::Go => {
            "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var"
        }
        Grammar::Java => {
            "abstract boolean break class else extends final for if import int new null package private public return static this void while"
        }
        Grammar::C | Grammar::Cpp => {
            "break case char const else enum for if int return sizeof static struct typedef union void while class namespace template"
        }
        Grammar::Ruby => {
            "begin class def do else end if module nil return self then unless until while yield"
        }
    };
    !keywords.split_whitespace().any(|k| k == new)
}
