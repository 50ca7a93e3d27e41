//! Air Agent: the Leptos user interface. Everything below the view layer
//! lives in the `air-*` crates; this crate only wires signals to them.

mod binding;
mod i18n;
mod view;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(view::App);
}
