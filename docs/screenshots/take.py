#!/usr/bin/env python3
"""Screenshots of each view of a numasim HTML report in headless Chromium, one PNG per view.
usage: take.py REPORT.html OUTDIR [view ...]"""
import os, re, subprocess, sys, tempfile

report, outdir = sys.argv[1], sys.argv[2]
html = open(report, encoding="utf-8").read()
views = sys.argv[3:] or re.findall(r'<section class="view" id="view-([a-z-]+)"', html)
os.makedirs(outdir, exist_ok=True)
# Taller views are cut here (the top of the view: its first run).
MAX_H = 2400
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]

def chromium(args, url, profile):
    return subprocess.run(["chromium", *FLAGS, f"--user-data-dir={profile}", *args, url],
                          capture_output=True, text=True, timeout=120)

for v in views:
    only = (f'<style>header, footer {{ display: none; }} section.view:not(#view-{v}) {{ display: none; }}'
            f' main {{ padding-top: 1px; }}</style>'
            '<script>window.addEventListener("load", function () { document.body.setAttribute("data-h",'
            ' String(document.documentElement.scrollHeight)); });</script></head>')
    with tempfile.TemporaryDirectory() as t:
        page = os.path.join(t, "view.html")
        open(page, "w", encoding="utf-8").write(html.replace("</head>", only, 1))
        url = "file://" + page
        dom = chromium(["--dump-dom", "--virtual-time-budget=2000", "--window-size=1280,800"], url,
                       os.path.join(t, "p1")).stdout
        h = int(re.search(r'data-h="(\d+)"', dom).group(1))
        out = os.path.abspath(os.path.join(outdir, f"{v}.png"))
        chromium([f"--screenshot={out}", f"--window-size=1280,{min(h, MAX_H)}"], url, os.path.join(t, "p2"))
        print(v, h, os.path.getsize(out))
