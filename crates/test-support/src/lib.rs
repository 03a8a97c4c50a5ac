//! Test support for orbit: fake provider servers that speak the real wire
//! formats on 127.0.0.1, scripted turn by turn, capturing every request.
