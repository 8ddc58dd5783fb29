import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import { takeTokenFromFragment } from "./connection.js";
import "./styles.css";

// Before anything renders: a token given as #token=... goes to this tab's storage, and out of the address bar.
takeTokenFromFragment(window.location, window.history, window.sessionStorage);

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
