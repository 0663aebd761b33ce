//! Tests of TypeScript and JavaScript extraction, kept apart from the lexer's code.

use super::decode::entity;
use super::*;
use crate::copy::extract::testing::{assert_maps_back, src_of, texts};

fn views(src: &str) -> Vec<View> {
    let mut views = extract(src);
    views.sort_by_key(|v| v.source_offset(0));
    assert_maps_back(src, &views);
    views
}

#[test]
fn string_literals_decode_escapes() {
    let src = r#"const a = 'it\'s v lese'; const b = "a\"b\u00e9\u{1F600}\uD83D\uDE00 \x41\n";"#;
    let v = views(src);
    assert_eq!(texts(&v), ["it's v lese", "a\"bé😀😀 A\n"]);
    assert_eq!(src_of(src, &v[0], "'s"), "\\'s");
    assert_eq!(src_of(src, &v[0], "v lese"), "v lese");
    assert_eq!(src_of(src, &v[1], "é"), "\\u00e9");
    assert_eq!(src_of(src, &v[1], "😀😀"), "\\u{1F600}\\uD83D\\uDE00");
    assert_eq!(src_of(src, &v[1], " A"), " \\x41");
}

#[test]
fn comments_and_regexes_are_not_prose() {
    let src = "\
// 'not a string'
/* \"nor this\" */
const re = /['\"]+/g; const d = a / b / c; const t = 'yes';
function f() { return /\"/.test(y); }
const r = (1) / 2 + '/'; // `no`
";
    let v = views(src);
    assert_eq!(texts(&v), ["yes", "/"]);
}

#[test]
fn template_literals_with_nested_expressions() {
    let src = "const t = `Ahoj ${user.name}, máš ${n > 1 ? `${n} zprávy` : 'zprávu'}\\n`;";
    let v = views(src);
    assert_eq!(
        texts(&v),
        ["Ahoj \u{FFFC}, máš \u{FFFC}\n", "\u{FFFC} zprávy", "zprávu"]
    );
    assert_eq!(src_of(src, &v[0], "\u{FFFC},"), "${user.name},");
    assert_eq!(src_of(src, &v[0], "\n"), "\\n");
    let src = "const s = css`color: red;`; const q = sql`select 1`; const c = styled.div`x: y`; const ok = t`Ahoj`;";
    assert_eq!(texts(&views(src)), ["Ahoj"]);
}

#[test]
fn module_specifiers_keys_and_directives_are_skipped() {
    let src = "\
'use client';
import x from './x';
import './side.css';
export * from 'y';
const l = await import('./lazy');
const r = require('fs');
declare module 'z' {}
const o = { 'aria-label': 'Zavřít', b: cond ? 'ano' : 'ne' };
switch (k) { case 'a': break; }
const s = { className: 'border border-[#ccc]', href: '/a/b', d: 'M0 0L1 1', title: 'Nápověda' };
";
    let v = views(src);
    assert_eq!(texts(&v), ["Zavřít", "ano", "ne", "Nápověda"]);
}

#[test]
fn jsx_text_joins_inline_elements_and_splits_blocks() {
    let src = "\
export function A() {
  return (
    <div className=\"card\" title=\"Titulek karty\">
      <p>
        Ahoj <b>světe</b>, jak se máš
        dnes?{' '}
        <Link to=\"/x\">Odkaz</Link>
      </p>
      <p>Cena: {price}&nbsp;Kč {/* komentář */}</p>
      <ul><li>Jedna</li><li>Dvě</li></ul>
      <p>Spusť <code>npm i</code> a<br/>hotovo</p>
      <pre>not prose</pre>
      <img src=\"a.png\" alt=\"Popis obrázku\" />
    </div>
  );
}
";
    let v = views(src);
    assert_eq!(
        texts(&v),
        [
            "Titulek karty",
            "Ahoj světe, jak se máš\ndnes? Odkaz",
            "Cena: \u{FFFC}\u{a0}Kč",
            "Jedna",
            "Dvě",
            "Spusť \u{FFFC} a\u{2028}hotovo",
            "Popis obrázku"
        ]
    );
    assert_eq!(src_of(src, &v[1], "máš\ndnes"), "máš\n        dnes");
    assert_eq!(
        src_of(src, &v[1], " Odkaz"),
        "{' '}\n        <Link to=\"/x\">Odkaz"
    );
    assert_eq!(src_of(src, &v[2], "\u{a0}"), "&nbsp;");
    assert_eq!(src_of(src, &v[5], "\u{FFFC}"), "<code>npm i</code>");
}

#[test]
fn attribute_expressions() {
    let src = "const a = <Btn className={cn('px-2', x)} label={'Uložit'} onClick={() => alert(\"Hotovo\")} />;";
    let v = views(src);
    assert_eq!(texts(&v), ["Uložit", "Hotovo"]);
}

#[test]
fn generics_are_not_jsx() {
    let src = "\
const id = <T,>(x: T) => x;
function f<T extends object>(x: T) { return 'a'; }
const g = <T>(x: T): T => x;
const n = <string>value;
const y = a < b && c > d ? 'yes' : 'no';
const j = <p>Text</p>;
";
    let v = views(src);
    assert_eq!(texts(&v), ["a", "yes", "no", "Text"]);
}

#[test]
fn crlf_in_templates_and_jsx() {
    let src = "const t = `a\r\nb`;\r\nconst j = <p>\r\n  Jdu v\r\n  lese\r\n</p>;\r\n";
    let v = views(src);
    assert_eq!(texts(&v), ["a\nb", "Jdu v\nlese"]);
    assert_eq!(src_of(src, &v[0], "\n"), "\r\n");
    assert_eq!(src_of(src, &v[1], "\n"), "\r\n  ");
}

#[test]
fn unterminated_constructs_do_not_panic() {
    for src in [
        "'abc", "`a ${b", "<p>text", "/* x", "a = /x", "<p {", "'\\", "`\\u{12",
    ] {
        let v = views(src);
        assert!(v.len() <= 2, "{src}: {v:?}");
    }
}

#[test]
fn mdx_blocks_read_as_jsx_children() {
    let src = "<Card title=\"Titulek\">\n  Uvnitř {x} karty.\n</Card>\n";
    let v = jsx_block(src, 0..src.len(), |d| d);
    assert_maps_back(src, &v);
    assert_eq!(texts(&v), ["Titulek", "Uvnitř \u{FFFC} karty."]);
    let v = jsx_block("</Card>\nafter\n", 0..14, |d| d);
    assert_eq!(texts(&v), ["after"]);
}

#[test]
fn entities() {
    assert_eq!(entity("&amp;x"), Some(("&".into(), 5)));
    assert_eq!(entity("&#233;"), Some(("é".into(), 6)));
    assert_eq!(entity("&#x1F600;"), Some(("😀".into(), 9)));
    assert_eq!(entity("&bogus;"), None);
    assert_eq!(entity("& a;"), None);
}
