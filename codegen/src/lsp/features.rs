//! Hover, completion, go to definition, references and code actions, from
//! the document's last [`Analysis`](super::analysis::Analysis), the cursor
//! context and the schema.

use std::collections::HashMap;
use std::ops::Range;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CompletionItem,
    CompletionItemKind, CompletionParams, CompletionResponse, CompletionTextEdit, Documentation,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams, Location,
    MarkupContent, MarkupKind, ReferenceParams, TextEdit, WorkspaceEdit,
};

use super::analysis::{summarize, ParamSummary};
use super::cursor::{self, At};
use super::state::{Doc, Server};
use super::text::LineIndex;

fn doc_at<'a>(
    server: &'a Server,
    pos: &lsp_types::TextDocumentPositionParams,
) -> Option<(&'a Doc, usize)> {
    let doc = server.docs.get(&pos.text_document.uri)?;
    let offset = LineIndex::new(&doc.text).offset(pos.position);
    Some((doc, offset))
}

/// A span holds the cursor when the cursor is in it or right after it.
fn holds(span: &Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

/// The parameter a reference or a parameter's own name at `offset` names.
fn param_at(doc: &Doc, offset: usize) -> Option<usize> {
    let a = &doc.analysis;
    if let Some(r) = a.references.iter().find(|r| holds(&r.span, offset)) {
        return r.param;
    }
    let file = a.file.as_ref()?;
    file.params
        .iter()
        .position(|p| holds(&p.value.name.span, offset))
}

fn markdown(value: String) -> HoverContents {
    HoverContents::Markup(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
}

fn param_markdown(index: usize, p: &ParamSummary) -> String {
    let mut s = format!("**parameter `{}`** (index {index}): {}", p.name, p.detail);
    if let Some(doc) = &p.doc {
        s.push_str("\n\n");
        s.push_str(doc);
    }
    s
}

pub fn hover(server: &Server, p: HoverParams) -> Option<Hover> {
    let (doc, offset) = doc_at(server, &p.text_document_position_params)?;
    let text = &doc.text;
    let a = &doc.analysis;
    let mut sections = Vec::new();
    let word = cursor::word_at(text, offset);
    if let Some(i) = param_at(doc, offset) {
        if let Some(param) = a.file.as_ref().and_then(|f| f.params.get(i)) {
            sections.push(param_markdown(i, &summarize(&param.value)));
        }
    } else {
        let c = cursor::at(text, offset);
        match &c.at {
            At::Value { key, .. } => {
                let value = &text[word.clone()];
                if let Some(e) = server
                    .schema_of(doc)
                    .values(&c.path, key)
                    .into_iter()
                    .find(|e| e.name == value)
                {
                    sections.push(format!(
                        "**`{}`** ({key}): {}",
                        e.name,
                        e.doc.unwrap_or_default()
                    ));
                }
                if c.path.is_empty() && matches!(key.as_str(), "name" | "revision") {
                    sections.extend(family_markdown(doc));
                }
            }
            At::Key { .. } => {
                let key = key_under(text, &word, offset);
                if let Some(d) = server.schema_of(doc).key_doc(&c.path, key) {
                    sections.push(format!("**`{key}`**: {d}"));
                }
                if c.path.is_empty() && matches!(key, "name" | "revision") {
                    sections.extend(family_markdown(doc));
                }
            }
            At::Elsewhere => {}
        }
    }
    let index = LineIndex::new(text);
    let here = index.position(offset);
    for d in &a.diagnostics {
        let r = d.lsp.range;
        if r.start <= here && here <= r.end {
            sections.push(format!(
                "**{}**: {}\n\n{}",
                d.code.as_str(),
                d.code.title(),
                d.code.explanation()
            ));
        }
    }
    if sections.is_empty() {
        return None;
    }
    Some(Hover {
        contents: markdown(sections.join("\n\n---\n\n")),
        range: (!word.is_empty()).then(|| index.range(&word)),
    })
}

/// The dotted-key part under the cursor (`matmul` in `operation.matmul`).
fn key_under<'t>(text: &'t str, word: &Range<usize>, offset: usize) -> &'t str {
    let mut start = word.start;
    for part in text[word.clone()].split('.') {
        if offset <= start + part.len() {
            return part;
        }
        start += part.len() + 1;
    }
    &text[word.clone()]
}

/// The family's identity and its approval in `approved.lock`.
fn family_markdown(doc: &Doc) -> Option<String> {
    let a = &doc.analysis;
    let file = a.file.as_ref()?;
    let (name, revision) = (&file.name.value, file.revision.value);
    let mut s = format!("**family `{name}`**, revision {revision}\n\n");
    match &a.family {
        Some(f) => s.push_str(&format!("identity `{}`\n\n", f.identity)),
        None => s.push_str("identity: not computed while the file has errors\n\n"),
    }
    let locked = a.approved.iter().find(|(r, _)| *r == revision);
    let status = match (locked, &a.family) {
        (Some((_, id)), Some(f)) if *id == f.identity => {
            format!("approved: revision {revision} is recorded in approved.lock")
        }
        (Some((_, id)), Some(_)) => format!(
            "changed: approved.lock records revision {revision} with identity `{id}`; bump the revision"
        ),
        (Some((_, id)), None) => {
            format!("approved.lock records revision {revision} with identity `{id}`")
        }
        (None, _) if a.approved.is_empty() => {
            "not approved yet: a new family; `kfam generate` records it in approved.lock".to_owned()
        }
        (None, _) => {
            let revs: Vec<String> = a.approved.iter().map(|(r, _)| r.to_string()).collect();
            format!(
                "not approved yet: approved.lock records revision {}; `kfam generate` records revision {revision}",
                revs.join(", ")
            )
        }
    };
    s.push_str(&status);
    Some(s)
}

pub fn completion(server: &Server, p: CompletionParams) -> Option<CompletionResponse> {
    let (doc, offset) = doc_at(server, &p.text_document_position)?;
    let text = &doc.text;
    let index = LineIndex::new(text);
    let c = cursor::at(text, offset);
    let edit = |typed: &Range<usize>, new_text: String| {
        Some(CompletionTextEdit::Edit(TextEdit {
            range: index.range(typed),
            new_text,
        }))
    };
    let documentation = |d: Option<String>| {
        d.map(|value| {
            Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            })
        })
    };
    let mut items = Vec::new();
    match &c.at {
        At::Key { typed } => {
            for e in server.schema_of(doc).keys(&c.path) {
                let new_text = if e.table {
                    e.name.clone()
                } else {
                    format!("{} = ", e.name)
                };
                items.push(CompletionItem {
                    label: e.name.clone(),
                    kind: Some(CompletionItemKind::PROPERTY),
                    documentation: documentation(e.doc),
                    text_edit: edit(typed, new_text),
                    ..CompletionItem::default()
                });
            }
        }
        At::Value { key, typed, quoted } => {
            let quote = |s: &str| {
                if *quoted {
                    s.to_owned()
                } else {
                    format!("\"{s}\"")
                }
            };
            for e in server.schema_of(doc).values(&c.path, key) {
                items.push(CompletionItem {
                    label: e.name.clone(),
                    kind: Some(CompletionItemKind::ENUM_MEMBER),
                    detail: e.doc.clone(),
                    documentation: documentation(e.doc),
                    text_edit: edit(typed, quote(&e.name)),
                    ..CompletionItem::default()
                });
            }
            let path = c.value_path().unwrap_or_default();
            if server.reference_paths.contains(&path) {
                for (i, param) in doc.analysis.params.iter().enumerate() {
                    items.push(CompletionItem {
                        label: param.name.clone(),
                        kind: Some(CompletionItemKind::VARIABLE),
                        detail: Some(param.detail.replace('`', "")),
                        documentation: documentation(Some(param_markdown(i, param))),
                        text_edit: edit(typed, quote(&param.name)),
                        ..CompletionItem::default()
                    });
                }
            }
        }
        At::Elsewhere => {}
    }
    Some(CompletionResponse::Array(items))
}

pub fn definition(server: &Server, p: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let (doc, offset) = doc_at(server, &p.text_document_position_params)?;
    let a = &doc.analysis;
    let r = a.references.iter().find(|r| holds(&r.span, offset))?;
    let param = a.file.as_ref()?.params.get(r.param?)?;
    let index = LineIndex::new(&doc.text);
    Some(GotoDefinitionResponse::Scalar(Location::new(
        doc.uri.clone(),
        index.range(&param.value.name.span),
    )))
}

pub fn references(server: &Server, p: ReferenceParams) -> Option<Vec<Location>> {
    let (doc, offset) = doc_at(server, &p.text_document_position)?;
    let target = param_at(doc, offset)?;
    let a = &doc.analysis;
    let index = LineIndex::new(&doc.text);
    let mut spans = Vec::new();
    if p.context.include_declaration {
        spans.push(a.file.as_ref()?.params.get(target)?.value.name.span.clone());
    }
    spans.extend(
        a.references
            .iter()
            .filter(|r| r.param == Some(target))
            .map(|r| r.span.clone()),
    );
    Some(
        spans
            .iter()
            .map(|s| Location::new(doc.uri.clone(), index.range(s)))
            .collect(),
    )
}

pub fn code_actions(server: &Server, p: CodeActionParams) -> Option<Vec<CodeActionOrCommand>> {
    let doc = server.docs.get(&p.text_document.uri)?;
    let index = LineIndex::new(&doc.text);
    let mut actions = Vec::new();
    for d in &doc.analysis.diagnostics {
        let r = d.lsp.range;
        if r.end < p.range.start || p.range.end < r.start {
            continue;
        }
        for fix in &d.fixes {
            let edit = TextEdit {
                range: index.range(&fix.span),
                new_text: fix.replacement.clone(),
            };
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: fix.title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.lsp.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(doc.uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..CodeAction::default()
            }));
        }
    }
    Some(actions)
}
