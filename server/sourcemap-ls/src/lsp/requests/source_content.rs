//! `sourcemap/sourceContent` `{uri}` → `{text}` for a `sourcemap-source:` URI.

use serde::{Deserialize, Serialize};
use sourcemap_core::SourceId;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::Url;

use crate::lsp::maps::map_key::MapKey;
use crate::lsp::maps::sources::{parse_virtual_uri, virtual_path_matches};
use crate::lsp::protocol::errors::invalid_params;
use crate::lsp::workspace::snapshot::Snapshot;

#[derive(Debug, Deserialize)]
pub struct Params {
    pub uri: Url,
}

#[derive(Debug, Serialize)]
pub struct Answer {
    pub text: String,
}

pub async fn source_content(b: &Snapshot<'_>, params: Params) -> Result<Answer> {
    let (key, id, path) = parse_virtual_uri(&params.uri)
        .ok_or_else(|| invalid_params(format!("not a sourcemap-source: URI: {}", params.uri)))?;
    let key = MapKey::from_uri_string(&key)
        .ok_or_else(|| invalid_params(format!("bad map in {}", params.uri)))?;
    let map = b.map_by_key(&key).await?;
    let index = &map.index;
    if id as usize >= index.sources().len()
        || !virtual_path_matches(&path, index.source(SourceId(id)).url.as_deref(), id)
    {
        // The map changed since the URI was made: never serve another source's text under this name.
        return Err(invalid_params(format!(
            "{} no longer names a source of that map",
            params.uri
        )));
    }
    let text = tokio::task::block_in_place(|| map.source_text(SourceId(id))).ok_or_else(|| {
        invalid_params(format!(
            "the map has no sourcesContent for {path} (or its file changed)"
        ))
    })?;
    Ok(Answer {
        text: text.to_string(),
    })
}
