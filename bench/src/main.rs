mod gen;
mod mtx;
fn main() {}
