#!/usr/bin/env node
import "../dist/bin/protoc-gen-a2a-http.js";
