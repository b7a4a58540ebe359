"""RFC 6570 expansion, checked against the RFC's own examples (section 3), and JSON values."""

from __future__ import annotations

import pytest

from mcp_jupyter.client._uri_template import TemplateError, expand, variables

VALUES = {
    "count": ["one", "two", "three"],
    "dom": ["example", "com"],
    "dub": "me/too",
    "hello": "Hello World!",
    "half": "50%",
    "var": "value",
    "who": "fred",
    "base": "http://example.com/home/",
    "path": "/foo/bar",
    "list": ["red", "green", "blue"],
    "keys": {"semi": ";", "dot": ".", "comma": ","},
    "v": "6",
    "x": "1024",
    "y": "768",
    "empty": "",
    "empty_keys": {},
    "undef": None,
}

RFC_EXAMPLES = """
{var} value|{hello} Hello%20World%21|{half} 50%25|O{empty}X OX|O{undef}X OX|{x,y} 1024,768
{x,hello,y} 1024,Hello%20World%21,768|?{x,empty} ?1024,|?{x,undef} ?1024|?{undef,y} ?768
{var:3} val|{var:30} value|{list} red,green,blue|{list*} red,green,blue
{keys} semi,%3B,dot,.,comma,%2C|{keys*} semi=%3B,dot=.,comma=%2C
{+var} value|{+hello} Hello%20World!|{+half} 50%25|{base}index http%3A%2F%2Fexample.com%2Fhome%2Findex
{+base}index http://example.com/home/index|O{+empty}X OX|{+path}/here /foo/bar/here
here?ref={+path} here?ref=/foo/bar|up{+path}{var}/here up/foo/barvalue/here
{+x,hello,y} 1024,Hello%20World!,768|{+path,x}/here /foo/bar,1024/here|{+path:6}/here /foo/b/here
{+list} red,green,blue|{+list*} red,green,blue|{+keys} semi,;,dot,.,comma,,|{+keys*} semi=;,dot=.,comma=,
{#var} #value|{#hello} #Hello%20World!|{#half} #50%25|foo{#empty} foo#|foo{#undef} foo
{#x,hello,y} #1024,Hello%20World!,768|{#path,x}/here #/foo/bar,1024/here|{#path:6}/here #/foo/b/here
{#list} #red,green,blue|{#list*} #red,green,blue|{#keys} #semi,;,dot,.,comma,,|{#keys*} #semi=;,dot=.,comma=,
{.who} .fred|{.who,who} .fred.fred|{.half,who} .50%25.fred|www{.dom*} www.example.com|X{.var} X.value
X{.empty} X.|X{.undef} X|X{.var:3} X.val|X{.list} X.red,green,blue|X{.list*} X.red.green.blue
X{.keys} X.semi,%3B,dot,.,comma,%2C|X{.keys*} X.semi=%3B.dot=..comma=%2C|X{.empty_keys} X|X{.empty_keys*} X
{/who} /fred|{/who,who} /fred/fred|{/half,who} /50%25/fred|{/who,dub} /fred/me%2Ftoo|{/var} /value
{/var,empty} /value/|{/var,undef} /value|{/var,x}/here /value/1024/here|{/var:1,var} /v/value
{/list} /red,green,blue|{/list*} /red/green/blue|{/list*,path:4} /red/green/blue/%2Ffoo
{/keys} /semi,%3B,dot,.,comma,%2C|{/keys*} /semi=%3B/dot=./comma=%2C
{;who} ;who=fred|{;half} ;half=50%25|{;empty} ;empty|{;v,empty,who} ;v=6;empty;who=fred
{;v,bar,who} ;v=6;who=fred|{;x,y} ;x=1024;y=768|{;x,y,empty} ;x=1024;y=768;empty|{;x,y,undef} ;x=1024;y=768
{;hello:5} ;hello=Hello|{;list} ;list=red,green,blue|{;list*} ;list=red;list=green;list=blue
{;keys} ;keys=semi,%3B,dot,.,comma,%2C|{;keys*} ;semi=%3B;dot=.;comma=%2C
{?who} ?who=fred|{?half} ?half=50%25|{?x,y} ?x=1024&y=768|{?x,y,empty} ?x=1024&y=768&empty=
{?x,y,undef} ?x=1024&y=768|{?var:3} ?var=val|{?list} ?list=red,green,blue
{?list*} ?list=red&list=green&list=blue|{?keys} ?keys=semi,%3B,dot,.,comma,%2C|{?keys*} ?semi=%3B&dot=.&comma=%2C
{&who} &who=fred|{&half} &half=50%25|?fixed=yes{&x} ?fixed=yes&x=1024|{&x,y,empty} &x=1024&y=768&empty=
{&var:3} &var=val|{&list} &list=red,green,blue|{&list*} &list=red&list=green&list=blue
{&keys} &keys=semi,%3B,dot,.,comma,%2C|{&keys*} &semi=%3B&dot=.&comma=%2C
"""
CASES = [case.split(" ", 1) for line in RFC_EXAMPLES.strip().splitlines() for case in line.split("|")]


@pytest.mark.parametrize(("template", "expected"), CASES)
def test_rfc_6570_examples(template, expected):
    assert expand(template, VALUES) == expected


def test_json_values_expand():
    assert expand("demo://items/{id}", {"id": 3}) == "demo://items/3"
    assert (
        expand("q{?on,limit,ratio}", {"on": True, "limit": 10, "ratio": 0.5})
        == "q?on=true&limit=10&ratio=0.5"
    )
    assert expand("t{?tag*}", {"tag": ["a b", 2, False]}) == "t?tag=a%20b&tag=2&tag=false"


def test_variables_and_errors():
    assert variables("{/list*,path:4}{?x,list}") == ["list", "path", "x"]
    with pytest.raises(TemplateError):
        expand("{unclosed", {})
    with pytest.raises(TemplateError):
        expand("{bad name}", {})
