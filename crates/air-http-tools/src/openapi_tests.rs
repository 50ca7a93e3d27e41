//! Fixtures written by hand after the shapes of public OpenAPI 3 documents
//! (the Swagger Petstore 3, the OpenAPI Initiative's petstore-expanded and
//! api-with-examples, GitHub's and Stripe's habits).

use serde_json::json;

use super::*;
use crate::request::build_request;

/// A Petstore-like API: server variables, parameters at the path item and
/// in components, array query parameters, bodies through
/// `components/requestBodies` and `allOf`, an operation without
/// `operationId`, a file upload, a form, a header parameter, a recursive
/// schema, an external ref and a ref cycle.
const PETSTORE: &str = r##"{
  "openapi": "3.0.3",
  "info": {"title": "Swagger Petstore", "version": "1.0.0"},
  "servers": [
    {
      "url": "https://{environment}.petstore.example.com:{port}/{basePath}",
      "variables": {
        "environment": {"default": "api", "enum": ["api", "api.dev", "api.staging"]},
        "port": {"enum": ["443", "8443"], "default": "8443"},
        "basePath": {"default": "v2"}
      }
    },
    {"url": "http://localhost:8080/v2"}
  ],
  "security": [{"api_key": []}],
  "paths": {
    "/pets": {
      "get": {
        "summary": "List all pets",
        "description": "Returns pets the user may see, filtered by tags.",
        "operationId": "listPets",
        "tags": ["pets"],
        "parameters": [
          {"$ref": "#/components/parameters/limitParam"},
          {
            "name": "tags", "in": "query", "description": "tags to filter by", "required": false,
            "style": "form", "explode": true,
            "schema": {"type": "array", "items": {"type": "string"}}
          },
          {"name": "X-Request-ID", "in": "header", "schema": {"type": "string", "format": "uuid"}}
        ],
        "responses": {"200": {"description": "A paged array of pets"}}
      },
      "post": {
        "summary": "Create a pet",
        "operationId": "createPet",
        "requestBody": {"$ref": "#/components/requestBodies/NewPet"},
        "responses": {"201": {"description": "Null response"}}
      },
      "options": {"responses": {"204": {"description": "CORS"}}}
    },
    "/pets/{petId}": {
      "parameters": [
        {"name": "petId", "in": "path", "required": true, "description": "The id of the pet to retrieve", "schema": {"type": "integer", "format": "int64"}}
      ],
      "get": {
        "summary": "Info for a specific pet",
        "operationId": "showPetById",
        "responses": {"200": {"description": "Expected response to a valid request"}}
      },
      "put": {
        "operationId": "updatePet",
        "description": "Update an existing pet by id.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/NewPet"}, {"type": "object", "properties": {"status": {"$ref": "#/components/schemas/Status"}}}]}},
            "application/xml": {"schema": {"$ref": "#/components/schemas/Pet"}}
          }
        },
        "responses": {"200": {"description": "ok"}}
      },
      "delete": {
        "description": "deletes a single pet based on the ID supplied",
        "deprecated": true,
        "security": [{"petstore_auth": ["write:pets"]}],
        "responses": {"204": {"description": "pet deleted"}}
      }
    },
    "/pets/{petId}/uploadImage": {
      "post": {
        "operationId": "uploadFile",
        "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}],
        "requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}}}},
        "responses": {"200": {"description": "ok"}}
      }
    },
    "/pets/{petId}/form": {
      "post": {
        "operationId": "updatePetWithForm",
        "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}],
        "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object"}}}},
        "responses": {"405": {"description": "Invalid input"}}
      }
    },
    "/store/orders": {
      "post": {
        "operationId": "store.placeOrders",
        "parameters": [{"name": "dryRun", "in": "query", "schema": {"type": "boolean"}}],
        "requestBody": {
          "description": "Orders to place",
          "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Order"}}}}
        },
        "responses": {"200": {"description": "ok"}}
      }
    },
    "/categories": {
      "post": {
        "operationId": "createCategory",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Category"}}}},
        "responses": {"200": {"description": "ok"}}
      }
    },
    "/remote": {
      "get": {
        "operationId": "remoteParams",
        "parameters": [{"$ref": "https://example.com/common.json#/parameters/page"}],
        "responses": {"200": {"description": "ok"}}
      }
    },
    "/loop": {
      "post": {
        "operationId": "loop",
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}},
        "responses": {"200": {"description": "ok"}}
      }
    },
    "/missing": {
      "get": {
        "operationId": "missingRef",
        "parameters": [{"$ref": "#/components/parameters/nope"}],
        "responses": {"200": {"description": "ok"}}
      }
    }
  },
  "components": {
    "parameters": {
      "limitParam": {
        "name": "limit", "in": "query", "description": "How many items to return at one time (max 100)", "required": false,
        "schema": {"type": "integer", "format": "int32", "maximum": 100}
      }
    },
    "requestBodies": {
      "NewPet": {
        "description": "Pet to add to the store",
        "required": true,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}}
      }
    },
    "schemas": {
      "NewPet": {
        "type": "object",
        "required": ["name"],
        "properties": {
          "id": {"type": "integer", "format": "int64", "readOnly": true},
          "name": {"type": "string", "example": "doggie"},
          "tag": {"type": "string"}
        },
        "xml": {"name": "pet"}
      },
      "Pet": {"allOf": [{"$ref": "#/components/schemas/NewPet"}]},
      "Status": {"type": "string", "description": "pet status in the store", "enum": ["available", "pending", "sold"]},
      "Order": {
        "type": "object",
        "properties": {"petId": {"type": "integer"}, "quantity": {"type": "integer"}, "status": {"$ref": "#/components/schemas/Status"}}
      },
      "Category": {
        "type": "object",
        "required": ["name"],
        "properties": {
          "name": {"type": "string"},
          "parent": {"$ref": "#/components/schemas/Category"},
          "children": {"type": "array", "items": {"$ref": "#/components/schemas/Category"}}
        }
      },
      "A": {"$ref": "#/components/schemas/B"},
      "B": {"$ref": "#/components/schemas/A"}
    },
    "securitySchemes": {
      "api_key": {"type": "apiKey", "name": "X-API-Key", "in": "header"},
      "petstore_auth": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://petstore.example.com/oauth/authorize", "scopes": {"write:pets": "modify pets"}}}}
    }
  }
}"##;

fn petstore() -> Imported {
    import_text(PETSTORE, None).unwrap()
}

fn tool<'a>(imported: &'a Imported, name: &str) -> &'a Candidate {
    imported.tools.iter().find(|c| c.tool.name == name).unwrap_or_else(|| panic!("no {name} in {:?}", names(imported)))
}

fn names(imported: &Imported) -> Vec<&str> {
    imported.tools.iter().map(|c| c.tool.name.as_str()).collect()
}

fn skipped<'a>(imported: &'a Imported, operation: &str) -> &'a SkipReason {
    &imported.skipped.iter().find(|s| s.operation == operation).unwrap_or_else(|| panic!("{operation} not skipped")).reason
}

#[test]
fn every_operation_is_a_candidate_or_skipped_with_a_reason() {
    let imported = petstore();
    assert_eq!(imported.title.as_deref(), Some("Swagger Petstore"));
    assert_eq!(names(&imported), ["listPets", "createPet", "showPetById", "updatePet", "delete_pets_petId", "store_placeOrders", "createCategory"]);
    let skipped: Vec<&str> = imported.skipped.iter().map(|s| s.operation.as_str()).collect();
    assert_eq!(skipped, ["OPTIONS /pets", "POST /pets/{petId}/uploadImage", "POST /pets/{petId}/form", "GET /remote", "POST /loop", "GET /missing"]);
    assert_eq!(tool(&imported, "showPetById").operation, "GET /pets/{petId}");
    for c in &imported.tools {
        assert_eq!(c.tool.validate(), Ok(()), "{}", c.operation);
    }
}

#[test]
fn the_base_url_takes_the_server_variables_defaults() {
    let imported = petstore();
    assert_eq!(imported.base_url, "https://api.petstore.example.com:8443/v2");
    assert_eq!(tool(&imported, "showPetById").tool.url, "https://api.petstore.example.com:8443/v2/pets/{petId}");
}

#[test]
fn query_parameters_and_refs_make_the_input_schema() {
    let imported = petstore();
    let list = tool(&imported, "listPets");
    assert_eq!(list.tool.method, Method::Get);
    assert_eq!(list.tool.description, "List all pets\n\nReturns pets the user may see, filtered by tags.");
    assert_eq!(
        list.tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "format": "int32", "maximum": 100, "description": "How many items to return at one time (max 100)"},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "tags to filter by"}
            }
        })
    );
    assert_eq!(list.tool.query, ["limit", "tags"]);
    assert_eq!(list.notes, [Note::HeaderParam { name: "X-Request-ID".into(), required: false }]);
    assert!(list.tool.read_only());
    let built = build_request(&list.tool, &json!({"limit": 20, "tags": ["dog", "cat"]})).unwrap();
    assert_eq!(built.request().url, "https://api.petstore.example.com:8443/v2/pets?limit=20&tags=dog&tags=cat");
}

#[test]
fn path_parameters_come_from_the_path_item() {
    let imported = petstore();
    let show = tool(&imported, "showPetById");
    assert_eq!(show.tool.input_schema["required"], json!(["petId"]));
    assert_eq!(show.tool.input_schema["properties"]["petId"]["description"], "The id of the pet to retrieve");
    assert_eq!(show.tool.description, "Info for a specific pet");
    let r = build_request(&show.tool, &json!({"petId": 42})).unwrap().into_request();
    assert_eq!(r.url, "https://api.petstore.example.com:8443/v2/pets/42");
    assert_eq!(build_request(&show.tool, &json!({})), Err(crate::request::ArgError::MissingPath("petId".into())));
}

#[test]
fn an_object_body_is_merged_beside_the_parameters() {
    let imported = petstore();
    let create = tool(&imported, "createPet");
    assert_eq!(
        create.tool.input_schema,
        json!({
            "type": "object",
            "properties": {"name": {"type": "string", "example": "doggie"}, "tag": {"type": "string"}},
            "required": ["name"]
        }),
        "the requestBody ref and the schema ref resolved; read-only id and xml left out"
    );
    assert_eq!((create.tool.args_in, create.tool.body_arg.as_deref()), (ArgsIn::Body, None));
    let r = build_request(&create.tool, &json!({"name": "Rex", "tag": "dog"})).unwrap().into_request();
    assert_eq!((r.method.as_str(), r.body.as_deref()), ("POST", Some(r#"{"name":"Rex","tag":"dog"}"#)));
    // allOf parts are merged, refs within them too.
    let update = tool(&imported, "updatePet");
    assert_eq!(update.tool.input_schema["required"], json!(["petId", "name"]));
    assert_eq!(update.tool.input_schema["properties"]["status"]["enum"], json!(["available", "pending", "sold"]));
    let r = build_request(&update.tool, &json!({"petId": 1, "name": "Rex", "status": "sold"})).unwrap().into_request();
    assert_eq!((r.url.as_str(), r.body.as_deref()), ("https://api.petstore.example.com:8443/v2/pets/1", Some(r#"{"name":"Rex","status":"sold"}"#)));
}

#[test]
fn a_body_that_is_not_an_object_is_one_argument() {
    let imported = petstore();
    let orders = tool(&imported, "store_placeOrders");
    assert_eq!(orders.tool.body_arg.as_deref(), Some("body"));
    assert_eq!(orders.tool.query, ["dryRun"]);
    let body = &orders.tool.input_schema["properties"]["body"];
    assert_eq!(body["type"], "array");
    assert_eq!(body["description"], "Orders to place");
    assert_eq!(body["items"]["properties"]["status"]["type"], "string", "refs inside items resolved");
    assert_eq!(orders.tool.input_schema.get("required"), Some(&json!(["body"])), "a body is required unless it says it is not");
    let r = build_request(&orders.tool, &json!({"body": [{"petId": 1, "quantity": 2}], "dryRun": true})).unwrap().into_request();
    assert_eq!(r.url, "https://api.petstore.example.com:8443/v2/store/orders?dryRun=true");
    assert_eq!(r.body.as_deref(), Some(r#"[{"petId":1,"quantity":2}]"#));
}

#[test]
fn an_operation_without_an_id_is_named_after_method_and_path() {
    let imported = petstore();
    let delete = tool(&imported, "delete_pets_petId");
    assert_eq!(delete.operation, "DELETE /pets/{petId}");
    assert_eq!(delete.tool.description, "deletes a single pet based on the ID supplied");
    assert!(delete.tool.destructive());
    assert_eq!(delete.notes, [Note::Deprecated]);
    assert_eq!(delete.tool.args_in, ArgsIn::Query, "no request body: nothing goes in one");
}

#[test]
fn a_recursive_schema_is_cut_where_it_contains_itself() {
    let imported = petstore();
    let category = tool(&imported, "createCategory");
    assert_eq!(category.notes, [Note::Recursive("Category".into())]);
    let props = &category.tool.input_schema["properties"];
    assert_eq!(props["parent"], json!({"description": "The same shape as Category (it contains itself)."}));
    assert_eq!(props["children"]["items"]["description"], "The same shape as Category (it contains itself).");
    assert!(!category.tool.input_schema.to_string().contains("$ref"));
}

#[test]
fn what_cannot_be_a_tool_says_why() {
    let imported = petstore();
    assert_eq!(skipped(&imported, "POST /pets/{petId}/uploadImage"), &SkipReason::Body(vec!["multipart/form-data".into()]));
    let form = skipped(&imported, "POST /pets/{petId}/form");
    assert!(form.to_string().contains("application/x-www-form-urlencoded") && form.to_string().contains("JSON bodies only"), "{form}");
    let remote = skipped(&imported, "GET /remote");
    assert_eq!(remote, &SkipReason::Ref(RefError::External("https://example.com/common.json#/parameters/page".into())));
    assert!(remote.to_string().contains("another document"), "{remote}");
    let cycle = skipped(&imported, "POST /loop");
    assert_eq!(cycle, &SkipReason::Ref(RefError::Cycle(vec!["#/components/schemas/A".into(), "#/components/schemas/B".into(), "#/components/schemas/A".into()])));
    assert!(cycle.to_string().contains("#/components/schemas/A → #/components/schemas/B → #/components/schemas/A"));
    assert_eq!(skipped(&imported, "GET /missing"), &SkipReason::Ref(RefError::Missing("#/components/parameters/nope".into())));
    assert_eq!(skipped(&imported, "OPTIONS /pets"), &SkipReason::Method("OPTIONS".into()));
}

#[test]
fn credentials_the_api_asks_for_are_listed_once() {
    let imported = petstore();
    assert_eq!(imported.auth, [Auth::Header { scheme: "api_key".into(), name: "X-API-Key".into() }, Auth::OAuth { scheme: "petstore_auth".into() }]);
}

/// The Swagger Petstore 3 as served: a relative server, JSON beside XML
/// and a form, `3.1.0`.
const PETSTORE3: &str = r##"{
  "openapi": "3.1.0",
  "info": {"title": "Swagger Petstore - OpenAPI 3.1", "version": "1.0.19"},
  "servers": [{"url": "/api/v3"}],
  "paths": {
    "/pet": {
      "post": {
        "tags": ["pet"], "summary": "Add a new pet to the store.", "operationId": "addPet",
        "requestBody": {
          "description": "Create a new pet in the store",
          "content": {
            "application/xml": {"schema": {"$ref": "#/components/schemas/Pet"}},
            "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/Pet"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
          },
          "required": true
        },
        "security": [{"bearer": []}],
        "responses": {"200": {"description": "Successful operation"}}
      }
    },
    "/pet/findByStatus": {
      "get": {
        "operationId": "findPetsByStatus",
        "parameters": [{"name": "status", "in": "query", "explode": false, "schema": {"type": "string", "default": "available"}}],
        "security": [],
        "responses": {"200": {"description": "ok"}}
      }
    }
  },
  "components": {
    "schemas": {
      "Pet": {
        "required": ["name", "photoUrls"],
        "type": "object",
        "properties": {
          "id": {"type": "integer", "format": "int64", "examples": [10]},
          "name": {"type": "string", "examples": ["doggie"]},
          "photoUrls": {"type": "array", "items": {"type": "string"}},
          "status": {"type": "string", "description": "pet status in the store", "enum": ["available", "pending", "sold"]}
        }
      }
    },
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}
  }
}"##;

#[test]
fn a_relative_server_is_resolved_against_the_document_url() {
    let imported = import_text(PETSTORE3, Some("https://petstore3.swagger.io/api/v3/openapi.json")).unwrap();
    assert_eq!(imported.base_url, "https://petstore3.swagger.io/api/v3");
    let add = tool(&imported, "addPet");
    assert_eq!(add.tool.url, "https://petstore3.swagger.io/api/v3/pet");
    assert_eq!(add.tool.input_schema["required"], json!(["name", "photoUrls"]), "the JSON body was picked");
    assert_eq!(add.tool.input_schema["properties"]["name"]["examples"], json!(["doggie"]));
    let find = tool(&imported, "findPetsByStatus");
    assert_eq!(find.notes, [Note::QueryStyle { name: "status".into() }]);
    assert_eq!(imported.auth, [Auth::Bearer { scheme: "bearer".into() }], "an empty security list asks for nothing");
    let e = import_text(PETSTORE3, None).unwrap_err();
    assert_eq!(e, ImportError::RelativeServer("/api/v3".into()));
    assert!(e.to_string().contains("import it from its URL"), "{e}");
}

#[test]
fn without_servers_the_document_is_the_server() {
    let doc = json!({"openapi": "3.0.0", "info": {"title": "t"}, "paths": {"/ping": {"get": {"responses": {}}}}});
    let imported = import_at(&doc, Some("https://status.example.org/openapi.json")).unwrap();
    assert_eq!(imported.base_url, "https://status.example.org");
    assert_eq!(imported.tools[0].tool.url, "https://status.example.org/ping");
    assert_eq!(imported.tools[0].tool.name, "get_ping");
    assert_eq!(imported.tools[0].tool.description, "GET /ping");
    assert!(matches!(import(&doc), Err(ImportError::RelativeServer(u)) if u == "/"));
}

#[test]
fn a_server_url_must_be_usable() {
    let with = |servers: Value| import(&json!({"openapi": "3.0.1", "servers": servers, "paths": {}}));
    let e = with(json!([{"url": "http://api.example.com/v1"}])).unwrap_err();
    assert_eq!(e, ImportError::Server { url: "http://api.example.com/v1".into(), why: UrlError::Insecure });
    assert!(e.to_string().contains("https"), "{e}");
    assert!(with(json!([{"url": "http://localhost:3000/"}])).is_ok_and(|i| i.base_url == "http://localhost:3000"));
    assert_eq!(with(json!([{"url": "https://{region}.api.test"}])), Err(ImportError::ServerVariable("region".into())));
    let region = json!([{"url": "https://{region}.api.test", "variables": {"region": {"default": "eu"}}}]);
    assert_eq!(with(region).map(|i| i.base_url), Ok("https://eu.api.test".to_owned()));
}

#[test]
fn an_operation_may_have_its_own_server() {
    let doc = json!({
        "openapi": "3.0.0",
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/files": {
                "servers": [{"url": "https://uploads.example.com/v1/"}],
                "get": {"operationId": "listFiles", "responses": {}},
                "delete": {"operationId": "purge", "servers": [{"url": "http://files.example.com"}], "responses": {}}
            }
        }
    });
    let imported = import(&doc).unwrap();
    assert_eq!(tool(&imported, "listFiles").tool.url, "https://uploads.example.com/v1/files");
    assert!(matches!(skipped(&imported, "DELETE /files"), SkipReason::Server(ImportError::Server { why: UrlError::Insecure, .. })));
}

#[test]
fn names_are_unique_and_fit_providers() {
    let doc = json!({
        "openapi": "3.0.0",
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/a": {"get": {"operationId": "get item", "responses": {}}},
            "/b": {"get": {"operationId": "get.item", "responses": {}}},
            "/c": {"get": {"operationId": format!("{}Long", "x".repeat(70)), "responses": {}}},
            "/d": {"get": {"operationId": format!("{}Long", "x".repeat(70)), "responses": {}}}
        }
    });
    let imported = import(&doc).unwrap();
    let names = names(&imported);
    assert_eq!(&names[..2], ["get_item", "get_item_2"]);
    assert_eq!(names[2], "x".repeat(64));
    assert_eq!(names[3], format!("{}_2", "x".repeat(62)));
}

#[test]
fn a_body_property_named_like_a_parameter_keeps_the_body_whole() {
    let doc = json!({
        "openapi": "3.0.0",
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/users/{id}": {"patch": {
            "operationId": "patchUser",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "requestBody": {"required": false, "content": {"application/merge-patch+json": {"schema": {
                "type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "email": {"type": "string"}}
            }}}}
        }}}
    });
    let imported = import(&doc).unwrap();
    let patch = tool(&imported, "patchUser");
    assert_eq!(patch.tool.body_arg.as_deref(), Some("body"));
    assert_eq!(patch.tool.input_schema["required"], json!(["id"]), "the body was optional");
    let r = build_request(&patch.tool, &json!({"id": "u1", "body": {"id": "u1", "email": "a@b.c"}})).unwrap().into_request();
    assert_eq!((r.url.as_str(), r.body.as_deref()), ("https://api.example.com/users/u1", Some(r#"{"id":"u1","email":"a@b.c"}"#)));
}

#[test]
fn clashing_parameters_skip_the_operation() {
    let doc = json!({
        "openapi": "3.0.0",
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/items/{id}": {"get": {"parameters": [
            {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
            {"name": "id", "in": "query", "schema": {"type": "string"}}
        ], "responses": {}}}}
    });
    assert_eq!(skipped(&import(&doc).unwrap(), "GET /items/{id}"), &SkipReason::Clash("id".into()));
}

#[test]
fn refs_that_fan_out_are_bounded() {
    // Each level names the next twice: 2^30 values if inlined in full.
    let mut schemas = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/components/schemas/S{}", i + 1);
        schemas.insert(format!("S{i}"), json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}));
    }
    schemas.insert("S30".into(), json!({"type": "string"}));
    let doc = json!({
        "openapi": "3.0.0",
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/x": {"post": {"operationId": "x", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}},
        "components": {"schemas": schemas}
    });
    let imported = import(&doc).unwrap();
    assert_eq!(skipped(&imported, "POST /x"), &SkipReason::Ref(RefError::TooLarge));
}

#[test]
fn pointers_are_unescaped() {
    let doc = json!({"paths": {"/a/{b}": {"x~y": 1}}, "c d": 2});
    let r = refs::Resolver::new(&doc);
    assert_eq!(r.pointer("#/paths/~1a~1{b}/x~0y"), Ok(&json!(1)));
    assert_eq!(r.pointer("#/paths/~1a~1%7Bb%7D/x~0y"), Ok(&json!(1)));
    assert_eq!(r.pointer("#/c%20d"), Ok(&json!(2)));
    assert_eq!(r.pointer("#"), Ok(&doc));
    assert_eq!(r.pointer("#paths"), Err(RefError::Missing("#paths".into())));
    assert_eq!(r.pointer("other.json#/x"), Err(RefError::External("other.json#/x".into())));
}

#[test]
fn only_openapi_3_json_is_read() {
    let swagger = json!({"swagger": "2.0", "info": {"title": "Petstore"}, "host": "petstore.swagger.io", "basePath": "/v2", "paths": {}});
    let e = import(&swagger).unwrap_err();
    assert_eq!(e, ImportError::Swagger2);
    assert!(e.to_string().contains("Swagger 2.0") && e.to_string().contains("OpenAPI 3"), "{e}");
    assert_eq!(import(&json!({"info": {}})), Err(ImportError::NotOpenApi));
    assert_eq!(import(&json!({"openapi": "4.0.0"})), Err(ImportError::Version("4.0.0".into())));
    assert_eq!(import(&json!([1])), Err(ImportError::NotObject));
    let yaml = "openapi: 3.0.0\ninfo:\n  title: Petstore\npaths: {}\n";
    let e = import_text(yaml, None).unwrap_err();
    assert_eq!(e, ImportError::Yaml);
    assert!(e.to_string().contains("YAML") && e.to_string().contains("convert it to JSON"), "{e}");
    assert_eq!(import_text("# Petstore\n---\nswagger: '2.0'\n", None), Err(ImportError::Yaml));
    assert!(matches!(import_text("{\"openapi\": \"3.0.0\",", None), Err(ImportError::Json(m)) if m.contains("line 1")));
    let bom = format!("\u{feff}{PETSTORE}");
    assert!(import_text(&bom, None).is_ok(), "a byte-order mark is skipped");
}
