"""A stream of YAML documents read as one record per document, a DTD as one record per element, and a count question
answered by the number a record states in the field it counts (made-up texts)."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.helpers import standalone_source
from tests.dspy_rlm.scripted import ask_scripted as _ask

MANIFESTS = """# the shop's objects
apiVersion: v1
kind: Service
metadata:
  name: web-frontend
  namespace: shop
spec:
  type: ClusterIP
  ports:
    - port: 80
      targetPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-frontend
  labels:
    app: web
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: web
          image: registry.example/web:1.4.2
          args: [--port, "8080"]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-settings
data:
  LOG_LEVEL: info
  GREETING: |
    Hello,
    shopper
...
"""

TAGGED = """%TAG ! tag:example.org,2020:
--- !order
number: 1077
ship-to: &home
  city: Lakeview
  street: 12 Elm Row
bill-to: *home
items:
  - part: hinge
    price: 4.50
  - part: bracket
    price: 12.00
--- !note
text: >
  Leave the parcel
  at the side door.
"""


def test_each_document_is_a_record_of_its_values_by_path():
    s = st.detect(MANIFESTS)
    assert (s.kind, s.detail, len(s.records)) == ("yaml", "documents", 3)
    deployment = s.records[1]
    assert deployment.key == "web-frontend" and deployment.get("spec.replicas") == "3"
    assert deployment.get("spec.template.spec.containers.image") == "registry.example/web:1.4.2"
    assert s.records[0].get("spec.ports.targetPort") == "8080" and s.records[0].line == 2
    assert s.records[2].get("data.GREETING") == "Hello,\nshopper" and s.records[2].key == "web-settings"


def test_anchors_tags_and_folded_scalars():
    s = st.detect(TAGGED)
    assert [r.key for r in s.records] == ["order", "note"]  # no name or id: the document's tag
    order = s.records[0]
    assert order.get("bill-to.city") == "Lakeview"  # the alias is the anchored mapping again
    assert [v for f, v in order.fields if f == "items.price"] == ["4.50", "12.00"]
    assert s.records[1].get("text") == "Leave the parcel at the side door."


def test_one_document_and_front_matter_stay_as_they_were():
    one = "name: solo\nversion: 2\nsettings:\n  depth: 4\n"
    assert st.detect(one).detail != "documents"
    front = "---\ntitle: Notes\n---\n# Notes\n\nSome prose about the notes, at length.\n"
    assert st.detect(front).detail != "documents"


def test_the_sandbox_helpers_read_the_stream_the_same():
    namespace: dict = {}
    exec(compile(standalone_source(), "<helpers>", "exec"), namespace)
    assert namespace["field_of"](MANIFESTS, "Deployment", "spec.replicas") == "3"
    assert lookup.field_of(MANIFESTS, "web-settings", "data.LOG_LEVEL") == "info"


def test_a_count_of_what_a_field_states_is_that_field():
    assert _ask("How many replicas does the web-frontend Deployment run?", MANIFESTS, "int") == (3, "submitted")
    assert _ask("How many objects does the manifest define?", MANIFESTS, "int") == (3, "submitted")
    settings = "[server]\nhost = 0.0.0.0\nworkers = 4\n\n[cache]\nhost = redis\nworkers = 2\nsize = 512\n"
    assert _ask("How many workers does the cache use?", settings, "int") == (2, "submitted")
    # a count of sections is no field's value: the server's 4 workers are not Submitted for it
    assert _ask("How many sections set workers?", settings, "int") != (4, "submitted")


RECIPES_DTD = """<!-- A made-up DTD for a recipe box -->
<!ENTITY % text "CDATA">
<!ENTITY % unit "(g|ml|pcs)">
<!ENTITY % p "">
<!ENTITY % box "%p;box">
<!ENTITY author "Nell Okafor">

<!ELEMENT %box; (recipe+)>
<!ATTLIST %box;
	xmlns	%text;	#FIXED 'urn:example:recipes'
	owner	%text;	#IMPLIED>

<!-- One dish, its steps in order -->
<!ELEMENT recipe (title, item*, step+)>
<!ATTLIST recipe
	id	ID	#REQUIRED
	serves	%text;	"2"
	course	(starter|main|dessert)	"main">

<!ELEMENT title (#PCDATA)>
<!ELEMENT item EMPTY>
<!ATTLIST item
	name	%text;	#REQUIRED
	amount	%text;	#REQUIRED
	unit	%unit;	"g">
<!ELEMENT step (#PCDATA)>
<!ELEMENT divider EMPTY>
"""


def test_a_dtd_is_a_record_per_element_with_its_attributes():
    s = st.detect(RECIPES_DTD)
    assert (s.kind, s.detail) == ("blocks", "dtd")
    by_key = {r.key: r for r in s.records}
    assert set(by_key) == {"author", "box", "recipe", "title", "item", "step", "divider"}  # % entities expanded
    assert by_key["box"].get("xmlns") == "urn:example:recipes" and by_key["box"].get("owner") == "#IMPLIED"
    assert by_key["recipe"].get("comment") == "One dish, its steps in order"
    assert by_key["item"].get("unit type") == "(g|ml|pcs)" and by_key["item"].get("content") == "EMPTY"
    assert _ask("How many elements are declared EMPTY?", RECIPES_DTD, "int") == (2, "submitted")
    assert _ask("What namespace is fixed for the xmlns attribute of the box element?", RECIPES_DTD) == (
        "urn:example:recipes",
        "submitted",
    )
    assert _ask("What is the default value of the serves attribute of recipe?", RECIPES_DTD) == ("2", "submitted")


def test_which_record_has_a_field_is_not_answered_by_the_fields_value():
    # the one element holding the attribute is the answer (since stop 92; before, no answer was Submitted)
    assert _ask("Which element has a unit attribute?", RECIPES_DTD) == ("item", "submitted")
    assert _ask("Which element has an owner attribute?", RECIPES_DTD) == ("box", "submitted")
    assert _ask("Which port does the Service forward to on its target?", MANIFESTS, "int") == (8080, "submitted")
