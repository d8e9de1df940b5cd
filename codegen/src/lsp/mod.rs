//! `kfam lsp`: a language server for family files over stdio, on
//! rust-analyzer's `lsp-server` (a synchronous loop over a channel) and
//! `lsp-types`. The analysis is the library's: every keystroke re-checks the
//! edited text with [`kfam_codegen::live::Manifest::check_file`] (the rules
//! of `kfam check`, the other files as loaded from disk); hover, completion
//! and navigation read the checker's spans and the published schema.

mod analysis;
mod cursor;
mod features;
mod keys;
mod state;
mod text;

use std::collections::{BTreeSet, HashMap};
use std::error::Error;

use kfam_codegen::live::{self, Manifest};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, GotoDefinition, HoverRequest, References, Request as _,
};
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, HoverProviderCapability, OneOf,
    PublishDiagnosticsParams, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
    Uri,
};

use analysis::Analysis;
use keys::Schema;
use state::{Doc, Server};

/// Run the server on stdin and stdout until the client says `exit`.
pub fn run() -> Result<(), Box<dyn Error + Sync + Send>> {
    let (connection, io_threads) = Connection::stdio();
    let capabilities = serde_json::to_value(capabilities())?;
    connection.initialize(capabilities)?;
    main_loop(connection)?;
    io_threads.join()?;
    Ok(())
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["\"".into(), "=".into(), "[".into()]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    }
}

fn main_loop(connection: Connection) -> Result<(), Box<dyn Error + Sync + Send>> {
    let mut server = Server::new();
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if connection.handle_shutdown(&req)? {
                    return Ok(());
                }
                let response = server.request(req);
                connection.sender.send(Message::Response(response))?;
            }
            Message::Notification(n) => {
                for out in server.notification(n) {
                    connection.sender.send(Message::Notification(out))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

impl Server {
    fn new() -> Self {
        Server {
            schema: Schema::family(),
            schemas: HashMap::new(),
            manifests: HashMap::new(),
            docs: HashMap::new(),
            reference_paths: BTreeSet::new(),
        }
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            HoverRequest::METHOD => call(req, |p| features::hover(self, p)),
            Completion::METHOD => call(req, |p| features::completion(self, p)),
            GotoDefinition::METHOD => call(req, |p| features::definition(self, p)),
            References::METHOD => call(req, |p| features::references(self, p)),
            CodeActionRequest::METHOD => call(req, |p| features::code_actions(self, p)),
            _ => {
                return Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("unhandled method {}", req.method),
                )
            }
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(e) => Response::new_err(id, ErrorCode::InvalidParams as i32, e),
        }
    }

    fn notification(&mut self, n: Notification) -> Vec<Notification> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidOpenTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let d = p.text_document;
                self.open(d.uri, d.text, d.version)
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidChangeTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                // Full synchronisation: the last change holds the whole text.
                let Some(change) = p.content_changes.into_iter().next_back() else {
                    return Vec::new();
                };
                let uri = p.text_document.uri;
                match self.docs.get_mut(&uri) {
                    Some(doc) => {
                        doc.text = change.text;
                        doc.version = p.text_document.version;
                        self.check(&uri).into_iter().collect()
                    }
                    None => Vec::new(),
                }
            }
            DidSaveTextDocument::METHOD | DidChangeWatchedFiles::METHOD => {
                // Another file of the manifest (or the lock, after `kfam
                // generate`) may have changed: reload from disk.
                self.manifests.clear();
                let uris: Vec<Uri> = self.docs.keys().cloned().collect();
                uris.iter().filter_map(|u| self.check(u)).collect()
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidCloseTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let uri = p.text_document.uri;
                self.docs.remove(&uri);
                vec![publish(uri, Vec::new(), None)]
            }
            _ => Vec::new(),
        }
    }

    fn open(&mut self, uri: Uri, text: String, version: i32) -> Vec<Notification> {
        let Some(path) = text::uri_path(&uri) else {
            return Vec::new();
        };
        // Editors start the server for every TOML file; only family files
        // of a manifest directory are its business (not Cargo.toml, nor
        // abi.toml, whose mistakes `kfam check` reports).
        let Some(root) = live::manifest_root(&path) else {
            return Vec::new();
        };
        // A newly opened file may be new on disk too.
        self.manifests.remove(&root);
        self.docs.insert(
            uri.clone(),
            Doc {
                uri: uri.clone(),
                text,
                version,
                root,
                path,
                analysis: Analysis::default(),
            },
        );
        self.check(&uri).into_iter().collect()
    }

    /// Re-check one document and say what the client should show.
    fn check(&mut self, uri: &Uri) -> Option<Notification> {
        let doc = self.docs.get_mut(uri)?;
        let learn = !self.manifests.contains_key(&doc.root);
        let manifest = self
            .manifests
            .entry(doc.root.clone())
            .or_insert_with(|| Manifest::open(&doc.root));
        if learn {
            analysis::learn_reference_paths(manifest, &mut self.reference_paths);
            let schema = Schema::family_of(&manifest.targets());
            self.schemas.insert(doc.root.clone(), schema);
        }
        let checked = manifest.check_file(&doc.path, doc.text.clone());
        doc.analysis = Analysis::new(
            &doc.uri,
            &doc.text,
            &doc.analysis,
            manifest,
            checked,
            &mut self.reference_paths,
        );
        let diagnostics = doc.analysis.lsp_diagnostics();
        Some(publish(uri.clone(), diagnostics, Some(doc.version)))
    }
}

fn publish(
    uri: Uri,
    diagnostics: Vec<lsp_types::Diagnostic>,
    version: Option<i32>,
) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_owned(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    )
}

fn parse<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| e.to_string())
}

/// Decode a request's parameters, run `f`, encode its result.
fn call<P: serde::de::DeserializeOwned, R: serde::Serialize>(
    req: Request,
    f: impl FnOnce(P) -> R,
) -> Result<serde_json::Value, String> {
    let params = parse::<P>(req.params)?;
    serde_json::to_value(f(params)).map_err(|e| e.to_string())
}
