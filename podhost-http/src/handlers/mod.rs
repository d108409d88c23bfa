//! One handler per endpoint, grouped as the route table groups them: each group's `handle`
//! matches its endpoints without a catch-all, so a row without a handler does not compile.
//! Handlers enforce no rule: the API checked the token, scope and query parameters from the
//! route table, and the core checks the rest; they translate between the wire and the core.

mod answers;
mod campaigns;
mod episodes;
mod fediverse;
mod feeds;
mod media;
mod members;
mod metadata;
mod multipart;
mod processing;
mod stats;
mod subscribers;
mod tokens;
mod webhooks;

use crate::{
    context::{Api, Call, RequestBody},
    routes::ApiEndpoint,
};

pub(crate) use answers::Answer;

/// The handler of an endpoint of the API, after the API checked the token, the scope and the
/// query parameters.
pub(crate) async fn dispatch<B: RequestBody>(
    api: &Api,
    endpoint: ApiEndpoint,
    call: Call<B>,
) -> Answer {
    match endpoint {
        ApiEndpoint::Media(e) => media::handle(api, e, call).await,
        ApiEndpoint::Metadata(e) => metadata::handle(api, e, call).await,
        ApiEndpoint::Processing(e) => processing::handle(api, e, call).await,
        ApiEndpoint::Feeds(e) => feeds::handle(api, e, call).await,
        ApiEndpoint::Episodes(e) => episodes::handle(api, e, call).await,
        ApiEndpoint::Subscribers(e) => subscribers::handle(api, e, call).await,
        ApiEndpoint::Webhooks(e) => webhooks::handle(api, e, call).await,
        ApiEndpoint::Stats(e) => stats::handle(api, e, call).await,
        ApiEndpoint::Tokens(e) => tokens::handle(api, e, call).await,
        ApiEndpoint::Campaigns(e) => campaigns::handle(api, e, call).await,
        ApiEndpoint::Members(e) => members::handle(api, e, call).await,
        ApiEndpoint::Fediverse(e) => fediverse::handle(api, e, call).await,
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use http::{HeaderMap, HeaderValue, header};
    use http_body_util::Full;
    use podhost_core::{Scope, Scopes};

    use super::dispatch;
    use crate::{
        Api, HttpConfig,
        context::Call,
        error::status_and_body,
        routes::{Endpoint, Route, Surface, route, routes, sample_path},
    };

    /// The headers and body of the row's example.
    fn example(row: &Route) -> (HeaderMap, Bytes) {
        let mut headers = HeaderMap::new();
        let wav = podhost_testkit::fixtures::wav(0.1, 8000);
        let Some((content_type, body)) = row.example_body(&wav) else {
            return (headers, Bytes::new());
        };
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(&content_type).unwrap(),
        );
        (headers, Bytes::from(body))
    }

    /// The table's scopes are the core's: called past the API's own check, the core refuses
    /// (403) exactly the pairs of row and scope that the table refuses.
    #[tokio::test]
    async fn the_core_refuses_exactly_what_the_table_refuses() {
        let (host, _clock) =
            podhost_testkit::test_host(std::sync::Arc::new(object_store::memory::InMemory::new()));
        host.access().create_account("alice").await.unwrap();
        let owner = host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
        let api = Api::new(host.clone(), HttpConfig::default());
        for scope in Scope::ALL {
            let token = host
                .access()
                .create_token(&owner, scope.as_str(), Scopes::from_iter([scope]))
                .await
                .unwrap();
            let who = host.access().authenticate(&token.secret).await.unwrap();
            for row in routes() {
                // The API's rows: an operator's row (the metrics) has no handler here.
                let Some(needed) = row.scope.filter(|_| row.surface == Surface::Api) else {
                    continue;
                };
                let path = sample_path(row);
                let Ok((_, Endpoint::Api(endpoint))) = route(&row.method, &path) else {
                    panic!("{} {} is an API route", row.method, row.path);
                };
                let (headers, body) = example(row);
                let call = Call {
                    who: who.clone(),
                    query: Vec::new(),
                    request_line: path.clone(),
                    headers,
                    body: Full::new(body),
                };
                let status = match dispatch(&api, endpoint, call).await {
                    Ok(answer) => answer.status(),
                    Err(e) => status_and_body(&e).0,
                };
                // An invitation grants its role's scopes too, and a member grants no more
                // than they hold: the row's example invites an editor.
                let granted = (row.method == http::Method::POST && row.path == "/api/members")
                    .then(|| {
                        podhost_core::authorization::role_scopes(podhost_core::model::Role::Editor)
                    });
                let held = Scopes::from_iter([scope]);
                let refused = !held.allows(needed) || granted.is_some_and(|g| !held.covers(&g));
                assert_eq!(
                    status == http::StatusCode::FORBIDDEN,
                    refused,
                    "{scope} {} {}: {status}",
                    row.method,
                    row.path
                );
            }
        }
    }
}
