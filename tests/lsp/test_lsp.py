"""`kfam lsp` driven over stdio by a real LSP client (pytest-lsp).

Run by `codegen/tests/lsp.rs`, which sets KFAM_BIN to the built binary. Each
test works on a copy of the shipped manifest (and the generated diagnostics
reference the server links codes to), edits buffers without saving, and
reads what the server publishes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]
KFAM = os.environ["KFAM_BIN"]

WORK = Path(tempfile.mkdtemp(prefix="kfam-lsp-")).resolve()
shutil.copytree(REPO / "manifest", WORK / "manifest")
(WORK / "generated" / "docs").mkdir(parents=True)
shutil.copy(REPO / "generated/docs/diagnostics.md", WORK / "generated/docs/diagnostics.md")
# A team's catalog with its own platform, backend, runtime and modes.
shutil.copytree(REPO / "tests/catalogs/npuops", WORK / "team" / "manifest")
TEAM = WORK / "team" / "manifest" / "families" / "scale_ok.toml"
FAMILIES = WORK / "manifest" / "families"
ADD = FAMILIES / "add_bf16_1024.toml"
MATMUL = FAMILIES / "matmul_acc_nz_bf16.toml"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[KFAM, "lsp", "--stdio"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=WORK.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


def position(text: str, needle: str, nth: int = 0, at: int = 0) -> types.Position:
    """The position `at` characters into the `nth` occurrence of `needle`."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    offset = start + at
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return types.Position(line=line, character=column)


def span(text: str, needle: str, nth: int = 0, inner: str | None = None) -> types.Range:
    """The range of the `nth` `needle`, or of `inner` inside it."""
    at = needle.index(inner) if inner is not None else 0
    length = len(inner if inner is not None else needle)
    return types.Range(
        start=position(text, needle, nth, at),
        end=position(text, needle, nth, at + length),
    )


async def open_doc(client: LanguageClient, path: Path, text: str) -> list[types.Diagnostic]:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=path.as_uri(), language_id="toml", version=1, text=text
            )
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[path.as_uri()])


async def change_doc(
    client: LanguageClient, path: Path, text: str, version: int
) -> list[types.Diagnostic]:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[path.as_uri()])


def by_code(diagnostics: list[types.Diagnostic]) -> dict[str, types.Diagnostic]:
    return {str(d.code): d for d in diagnostics}


@pytest.mark.asyncio
async def test_diagnostics_appear_at_their_ranges_and_clear_when_fixed(client: LanguageClient):
    good = ADD.read_text()
    bad = good.replace('returns = ["out"]', 'returns = ["lhs"]').replace(
        '{ param = "rhs", slot = 1', '{ param = "rsh", slot = 1'
    )
    found = by_code(await open_doc(client, ADD, bad))
    assert set(found) == {"KF0304", "KF0601"}, found
    alias = found["KF0304"]
    assert alias.range == span(bad, '"lhs"')
    assert alias.severity == types.DiagnosticSeverity.Error
    assert alias.source == "kfam"
    assert "return alias `lhs` names an `in` tensor" in alias.message
    assert "help: return the tensor that holds the result" in alias.message
    # The code links to its explanation in the generated reference.
    assert alias.code_description is not None
    assert alias.code_description.href.endswith("generated/docs/diagnostics.md#kf0304")
    assert found["KF0601"].range == span(bad, '"rsh"')

    assert await change_doc(client, ADD, good, 2) == []


@pytest.mark.asyncio
async def test_duplicate_parameter_has_a_related_location(client: LanguageClient):
    text = MATMUL.read_text().replace('name = "w"', 'name = "x"')
    found = by_code(await open_doc(client, MATMUL, text))
    dup = found["KF0104"]
    assert dup.range == span(text, 'name = "x"', 1, inner='"x"')
    assert dup.related_information is not None
    first = dup.related_information[0]
    assert first.location.uri == MATMUL.as_uri()
    assert first.location.range == span(text, 'name = "x"', 0, inner='"x"')


@pytest.mark.asyncio
async def test_hover(client: LanguageClient):
    text = MATMUL.read_text()
    await open_doc(client, MATMUL, text)
    uri = types.TextDocumentIdentifier(uri=MATMUL.as_uri())

    async def hover(pos: types.Position) -> str:
        h = await client.text_document_hover_async(
            types.HoverParams(text_document=uri, position=pos)
        )
        assert h is not None and isinstance(h.contents, types.MarkupContent)
        return h.contents.value

    # A parameter reference: its declaration and doc.
    shown = await hover(position(text, 'a = "x"', at=5))
    assert "parameter `x`" in shown and "`bf16`" in shown
    assert "Activations: a dynamic number of rows." in shown
    # A vocabulary value: its meaning.
    shown = await hover(position(text, 'layout = "nz"', at=11))
    assert "`nz`" in shown and "code" in shown
    # The family: identity digest and approval status from approved.lock.
    shown = await hover(position(text, 'name = "matmul_acc_nz_bf16"', at=9))
    assert "identity `" in shown
    assert "approved: revision 1 is recorded in approved.lock" in shown
    # A diagnostic: the explanation of its code.
    bad = text.replace('returns = ["acc", "acc"]', 'returns = ["x"]')
    await change_doc(client, MATMUL, bad, 2)
    shown = await hover(position(bad, 'returns = ["x"]', at=12))
    assert "KF0304" in shown and "A returned tensor is written by the kernel" in shown


async def completion_labels(client: LanguageClient, path: Path, pos: types.Position) -> set[str]:
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=pos)
    )
    assert isinstance(result, list)
    return {item.label for item in result}


@pytest.mark.asyncio
async def test_completion(client: LanguageClient):
    text = ADD.read_text().replace('lhs = "lhs"', 'lhs = ""')
    await open_doc(client, ADD, text)

    async def labels(pos: types.Position) -> set[str]:
        return await completion_labels(client, ADD, pos)

    # Parameter names where a parameter is referenced: an operand, a return, a binding.
    assert {"lhs", "rhs", "out"} <= await labels(position(text, 'lhs = ""', at=7))
    assert {"lhs", "rhs", "out"} <= await labels(position(text, 'returns = ["out"]', at=12))
    assert {"lhs", "rhs", "out"} <= await labels(position(text, '{ param = "rhs"', at=11))
    # Vocabulary values.
    assert {"bf16", "fp16", "fp4"} <= await labels(position(text, 'dtype = "bf16"', at=9))
    assert {"a2a3", "xdna2"} <= await labels(position(text, 'platform = "xdna2"', at=12))
    assert {"buffer_object", "tensor_arg"} <= await labels(position(text, 'kind = "buffer_object"', at=8))
    # Keys valid at the cursor: in a parameter table, and at the top level.
    with_key = text.replace('shape = [1024]\n\n[[params]]\nname = "out"', 'shape = [1024]\nla\n\n[[params]]\nname = "out"')
    await change_doc(client, ADD, with_key, 2)
    keys = await labels(position(with_key, "\nla\n", at=3))
    assert {"layout", "doc", "direction"} <= keys and "platform" not in keys
    assert {"revision", "summary", "torch"} <= await labels(types.Position(line=1, character=0))


@pytest.mark.asyncio
async def test_completion_offers_the_catalogs_own_targets(client: LanguageClient):
    text = TEAM.read_text()
    assert await open_doc(client, TEAM, text) == []

    async def labels(pos: types.Position) -> set[str]:
        return await completion_labels(client, TEAM, pos)

    assert await labels(position(text, 'platform = "npu"', at=12)) == {"npu"}
    assert await labels(position(text, 'backend = "npucc"', at=11)) == {"npucc", "npucc_next"}
    assert await labels(position(text, 'runtime = "npu_rt"', at=11)) == {"npu_rt"}
    # The shipped catalog, open in the same server, keeps its own.
    shipped = ADD.read_text()
    await open_doc(client, ADD, shipped)
    shipped_labels = await completion_labels(client, ADD, position(shipped, 'platform = "xdna2"', at=12))
    assert {"a2a3", "xdna2"} <= shipped_labels


@pytest.mark.asyncio
async def test_definition_and_references(client: LanguageClient):
    text = ADD.read_text()
    await open_doc(client, ADD, text)
    uri = types.TextDocumentIdentifier(uri=ADD.as_uri())
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=uri, position=position(text, 'rhs = "rhs"', at=8))
    )
    assert isinstance(found, types.Location)
    assert found.uri == ADD.as_uri()
    assert found.range == span(text, 'name = "rhs"', inner='"rhs"')

    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=uri,
            position=position(text, 'name = "out"', at=8),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert refs is not None
    ranges = [r.range for r in refs]
    assert ranges == [
        span(text, 'name = "out"', inner='"out"'),  # the declaration
        span(text, 'returns = ["out"]', inner='"out"'),
        span(text, 'out = "out"', inner='"out"'),  # the operation's result
        span(text, 'param = "out"', inner='"out"'),  # the binding
    ], ranges


async def fix(client: LanguageClient, path: Path, text: str, code: str) -> tuple[str, str]:
    """Open `text`, apply the quick fix of diagnostic `code`: (title, new text)."""
    diagnostics = by_code(await open_doc(client, path, text))
    d = diagnostics[code]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    assert actions is not None and len(actions) == 1, actions
    action = actions[0]
    assert isinstance(action, types.CodeAction)
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[path.as_uri()]
    lines = text.split("\n")
    start, end = edit.range.start, edit.range.end
    assert start.line == end.line
    line = lines[start.line]
    lines[start.line] = line[: start.character] + edit.new_text + line[end.character :]
    return action.title, "\n".join(lines)


@pytest.mark.asyncio
async def test_code_actions(client: LanguageClient):
    good = ADD.read_text()
    # A misspelt key: replaced with the suggestion.
    title, fixed = await fix(client, ADD, good.replace("dtype", "dtpye", 1), "KF0003")
    assert title == "replace `dtpye` with `dtype`"
    assert fixed == good
    # A misspelt vocabulary value.
    title, fixed = await fix(client, ADD, good.replace('"bf16"', '"bf61"', 1), "KF0006")
    assert title == "replace `bf61` with `bf16`"
    assert fixed == good
    # An uppercase digest: lowercased.
    digest = "5c1f0e3c8f0a4a57f0d7a3c2a7e1a4b0f6b3d5d8e2c9a1b7f4e6d3c2b1a09876"
    title, fixed = await fix(client, ADD, good.replace(digest, digest.upper()), "KF0702")
    assert title == "lowercase the digest"
    assert fixed == good
    # An edited approved family: the revision bumped.
    edited = good.replace('op = "add"', 'op = "mul"')
    title, fixed = await fix(client, ADD, edited, "KF1101")
    assert title == "bump to revision 2"
    assert fixed == edited.replace("revision = 1", "revision = 2")


@pytest.mark.asyncio
async def test_other_toml_files_are_left_alone(client: LanguageClient):
    cargo = WORK / "Cargo.toml"
    text = '[package]\nname = "x"\n'
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=cargo.as_uri(), language_id="toml", version=1, text=text
            )
        )
    )
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=cargo.as_uri()),
            position=types.Position(line=1, character=1),
        )
    )
    assert hover is None
    assert cargo.as_uri() not in client.diagnostics
