//! Air Agent: the Leptos user interface. Everything below the view layer
//! lives in the `air-*` crates; this crate only wires signals to them.

mod apps;
mod binding;
mod env;
mod i18n;
mod lazy;
mod state;
mod store;
mod view;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(view::App);
}
