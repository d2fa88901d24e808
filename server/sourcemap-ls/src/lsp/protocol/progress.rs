//! `$/progress` for work a client waits on (indexing a large map, walking the workspace), sent from a spawned
//! task: a client request awaited inside a handler could deadlock.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use tower_lsp::lsp_types::notification::Progress as ProgressNotification;
use tower_lsp::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp::lsp_types::{
    NumberOrString, ProgressParams, ProgressParamsValue, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd,
};
use tower_lsp::Client;

#[derive(Default)]
pub struct Progress {
    client: OnceLock<Client>,
    supported: AtomicBool,
    next_token: AtomicU64,
}

impl Progress {
    pub fn set_client(&self, client: Client, supported: bool) {
        let _ = self.client.set(client);
        self.supported.store(supported, Ordering::Relaxed);
    }

    /// Reports `$/progress` titled `title` until the returned sender is used or dropped (`true`: it succeeded).
    pub fn begin(
        &self,
        title: &str,
        message: String,
    ) -> Option<tokio::sync::oneshot::Sender<bool>> {
        if !self.supported.load(Ordering::Relaxed) {
            return None;
        }
        let client = self.client.get()?.clone();
        let (tx, rx) = tokio::sync::oneshot::channel::<bool>();
        let n = self.next_token.fetch_add(1, Ordering::Relaxed);
        let token = NumberOrString::String(format!("sourcemap-ls/progress/{n}"));
        let title = title.to_string();
        tokio::spawn(async move {
            let created = client
                .send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams {
                    token: token.clone(),
                })
                .await;
            if created.is_err() {
                return;
            }
            client
                .send_notification::<ProgressNotification>(ProgressParams {
                    token: token.clone(),
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(
                        WorkDoneProgressBegin {
                            title,
                            cancellable: Some(false),
                            message: Some(message),
                            percentage: None,
                        },
                    )),
                })
                .await;
            let ok = rx.await.unwrap_or(false);
            client
                .send_notification::<ProgressNotification>(ProgressParams {
                    token,
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(
                        WorkDoneProgressEnd {
                            message: Some(if ok { "done" } else { "failed" }.into()),
                        },
                    )),
                })
                .await;
        });
        Some(tx)
    }
}
