# The emulator as a service container (issue 28). `make image` prepares the wheels in
# build/wheels/ (the emulator's, and its dependencies' for the base's Python at uv.lock's
# versions, listed with their hashes in requirements.txt) and builds this: nothing inside the
# build reaches the network, and pip installs nothing whose hash the lock does not hold.
# BASE: any glibc image with python3 (3.11 or later) and its venv module (the suite builds on
# one made from Debian's packages: tools/container-base.sh).
#   docker run -p 8400:8400 -e EMULATOR_ADMIN_TOKEN=s3cret -v emulator-data:/data payments-emulator
ARG BASE=python:3.12-slim

FROM ${BASE} AS install
# On both stages: `make image` prunes the images of earlier builds (untagged) by this label.
LABEL org.payments-emulator.build=1
COPY build/wheels/ /tmp/wheels/
RUN python3 -m venv /opt/emulator \
    && /opt/emulator/bin/pip install --quiet --no-index --no-cache-dir \
        --disable-pip-version-check --find-links /tmp/wheels --require-hashes \
        -r /tmp/wheels/requirements.txt \
    && /opt/emulator/bin/pip install --quiet --no-index --no-cache-dir \
        --disable-pip-version-check --no-deps /tmp/wheels/payments_emulator-*.whl \
    && /opt/emulator/bin/pip check \
    && /opt/emulator/bin/pip uninstall --quiet --yes pip

FROM ${BASE}
LABEL org.payments-emulator.build=1
COPY --from=install /opt/emulator /opt/emulator
# A user of its own (no shell, no password); /data, the volume, is its.
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin emulator \
    && mkdir /data && chown emulator:emulator /data
ENV PATH=/opt/emulator/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    EMULATOR_HOST=0.0.0.0 \
    EMULATOR_PORT=8400 \
    EMULATOR_DB=/data/emulator.sqlite3
USER emulator
WORKDIR /data
VOLUME /data
EXPOSE 8400
# Open without the admin token; plain HTTP unless EMULATOR_TLS (or a certificate) is set.
HEALTHCHECK --interval=2s --timeout=2s --start-period=30s --retries=3 \
    CMD ["python3", "-c", "import os, ssl, urllib.request as u; t = os.environ.get('EMULATOR_TLS', '').lower() in ('1', 'true', 'yes', 'on') or bool(os.environ.get('EMULATOR_TLS_CERT')); u.urlopen(('https' if t else 'http') + '://127.0.0.1:' + os.environ.get('EMULATOR_PORT', '8400') + '/_emulator/health', timeout=2, context=ssl._create_unverified_context() if t else None)"]
# SIGTERM (docker stop) stops it cleanly: open requests finish, the clock and journal are saved.
STOPSIGNAL SIGTERM
ENTRYPOINT ["payments-emulator"]
CMD ["serve"]
