import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import { takeLinkedToken } from "./token-link.js";
import "./styles.css";

// Before anything renders: a token given as #token=... goes to this tab's storage (if the user
// agrees to replace one already there), and out of the address bar.
takeLinkedToken();

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
